/**
 * Telemetry: off, and there is no code that could send any. The CLI collects nothing and sends nothing
 * anywhere; SERVICE_TELEMETRY=0 (spec: Command-line client) is accepted for compatibility and changes nothing.
 * `dossier doctor`, `dossier --help` and the README say exactly this.
 */
export const TELEMETRY_STATEMENT =
  "off: Dossier's CLI sends no telemetry (collected: nothing; sent: nowhere; SERVICE_TELEMETRY=0 is accepted for compatibility)";
