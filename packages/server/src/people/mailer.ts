import type { Logger } from '@dossier/core';
import nodemailer from 'nodemailer';

/** Sends the links of invitations and password resets (issue 42); optional: without it, the admin passes links on. */
export interface Mailer {
  /** Send a plain-text message; false (and a warning in the log, never the link) when the server refused it. */
  send(message: { to: string; subject: string; text: string }): Promise<boolean>;
}

/** A mailer over SMTP: `smtp://user:pass@host:587` (STARTTLS when offered) or `smtps://…:465`. */
export function smtpMailer(url: string, from: string, log: Logger): Mailer {
  const transport = nodemailer.createTransport(url);
  return {
    async send({ to, subject, text }) {
      try {
        await transport.sendMail({ from, to, subject, text });
        return true;
      } catch (err) {
        log.warn('e-mail not sent', { to, subject, error: err instanceof Error ? err.message : String(err) });
        return false;
      }
    },
  };
}
