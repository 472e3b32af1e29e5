import { countTokens } from '../ingest/chunker.ts';
import type { ChatMessage, ToolDefinition } from '../ports/model-provider.ts';

/** A tool's result, with shorter forms the loop may swap in as the run's context budget nears. */
export interface ToolOutput {
  /** What the model reads first. */
  content: string;
  /** Ever shorter forms of `content` (e.g. excerpts, then bare references), used oldest results first. */
  condensed?: readonly string[];
}

/** Tokens a message costs beyond its text (role and separators), as OpenAI's cookbook counts them. */
const MESSAGE_OVERHEAD = 4;
/** A result shorter than this stays whole in its first condensed form (cutting it would save little). */
const SHORT_RESULT_CHARS = 1500;
/** When the window must shrink, it shrinks to this share of its allowance, so the next turns (and the provider's cached prefix) keep it as is. */
const SHRINK_TO = 0.7;

/** The forms of a plain-text tool result: whole, its head, then a one-line note. */
export function defaultForms(tool: string, content: string): string[] {
  const gone = `[An earlier ${tool} result was removed to keep the conversation within its budget; call the tool again if you need it.]`;
  if (content.length <= SHORT_RESULT_CHARS) return [content, gone];
  const head = `${content.slice(0, SHORT_RESULT_CHARS)}\n[… ${content.length - SHORT_RESULT_CHARS} more characters of this earlier result were condensed away.]`;
  return [content, head, gone];
}

function messageTokens(m: ChatMessage): number {
  if (m.role === 'assistant') return MESSAGE_OVERHEAD + countTokens(m.content) + (m.toolCalls?.length ? countTokens(JSON.stringify(m.toolCalls)) : 0);
  if (m.role === 'user' && typeof m.content !== 'string') {
    // An image costs about 1,600 tokens at the providers' default resolution.
    return MESSAGE_OVERHEAD + m.content.reduce((n, p) => n + (p.type === 'text' ? countTokens(p.text) : 1600), 0);
  }
  return MESSAGE_OVERHEAD + countTokens(m.content as string);
}

interface Entry {
  message: ChatMessage;
  /** Tool results only: the forms, longest first, and the tokens of each. */
  forms?: readonly string[];
  formTokens?: number[];
  level: number;
  tokens: number;
  /** The loop turn that added it (0 for the initial messages). */
  turn: number;
}

/**
 * The conversation an agent run sends, with an estimate of its input tokens (cl100k; providers' own tokenizers
 * differ by a few percent) and the means to shrink it: older tool results step down to their condensed forms,
 * oldest first. A result never grows back, so the prefix a provider has cached stays byte-identical until the next
 * shrink.
 */
export class ContextWindow {
  private readonly entries: Entry[];
  private readonly toolTokens: number;

  constructor(messages: readonly ChatMessage[], tools: readonly ToolDefinition[]) {
    this.entries = messages.map((message) => ({ message, level: 0, tokens: messageTokens(message), turn: 0 }));
    this.toolTokens = tools.length ? countTokens(JSON.stringify(tools)) : 0;
  }

  /** Append a message of turn `turn`; a tool result may bring shorter forms (`forms[0]` is the message's content). */
  add(message: ChatMessage, turn: number, forms?: readonly string[]): void {
    if (message.role !== 'tool' || !forms || forms.length < 2) {
      this.entries.push({ message, level: 0, tokens: messageTokens(message), turn });
      return;
    }
    const formTokens = forms.map((f) => MESSAGE_OVERHEAD + countTokens(f));
    this.entries.push({ message: { ...message, content: forms[0] ?? '' }, forms, formTokens, level: 0, tokens: formTokens[0] ?? 0, turn });
  }

  /** The messages as they would be sent now. */
  messages(): ChatMessage[] {
    return this.entries.map((e) => e.message);
  }

  /** Estimated input tokens of a request with these messages (plus `extra` ones) and the tools. */
  tokens(extra: readonly ChatMessage[] = []): number {
    return this.entries.reduce((n, e) => n + e.tokens, this.toolTokens) + extra.reduce((n, m) => n + messageTokens(m), 0);
  }

  /**
   * Make the request (with `extra` messages) cost at most `limit` tokens if condensing can: tool results of earlier
   * turns step down first, oldest first and one form at a time, then those of the latest turn. Once it must shrink,
   * it shrinks to 70% of the limit. Returns whether the request now fits.
   */
  fit(limit: number, extra: readonly ChatMessage[] = []): boolean {
    if (this.tokens(extra) <= limit) return true;
    const target = limit * SHRINK_TO;
    const latest = Math.max(0, ...this.entries.map((e) => e.turn));
    const shrinkable = this.entries.filter((e) => e.forms);
    const older = shrinkable.filter((e) => e.turn < latest);
    const depth = Math.max(0, ...shrinkable.map((e) => (e.forms?.length ?? 1) - 1));
    for (const scope of [older, shrinkable]) {
      for (let level = 1; level <= depth; level++) {
        for (const entry of scope) {
          if (entry.level >= level || !entry.forms || level >= entry.forms.length) continue;
          this.condense(entry, level);
          if (this.tokens(extra) <= target) return true;
        }
      }
    }
    return this.tokens(extra) <= limit;
  }

  private condense(entry: Entry, level: number): void {
    const content = entry.forms?.[level] ?? '';
    entry.level = level;
    entry.tokens = entry.formTokens?.[level] ?? MESSAGE_OVERHEAD + countTokens(content);
    entry.message = { ...(entry.message as Extract<ChatMessage, { role: 'tool' }>), content };
  }
}
