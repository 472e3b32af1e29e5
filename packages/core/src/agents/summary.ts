import { UNTRUSTED_TAG } from '../research/untrusted.ts';

/** Characters of a result's first line kept in a summary. */
const SUMMARY_CHARS = 160;

/**
 * The short description a `tool_result` event carries (spec: the full content goes to the model only): how many
 * passages or sections came back and where from, or the tool's own error message.
 */
export function summarizeToolResult(tool: string, content: string): string {
  const body = content.replace(new RegExp(`</?${UNTRUSTED_TAG}[^>]*>`, 'g'), '').trim();
  if (body.startsWith('Error:')) return clip(body);
  const passages = [...body.matchAll(/^\[S\d+\] (.+?) ›/gm)].map((match) => match[1]!);
  if (passages.length > 0) {
    const files = [...new Set(passages)];
    return `${passages.length} passage${passages.length === 1 ? '' : 's'} from ${files.length === 1 ? files[0] : `${files.length} documents`}`;
  }
  const sections = body.match(/^\s*section_id /gm)?.length ?? 0;
  if (tool === 'scan_sections' || (tool !== 'get_document' && sections > 0)) return `${sections} section${sections === 1 ? '' : 's'}`;
  const documents = body.match(/^document_id /gm)?.length ?? 0;
  if (tool === 'list_documents') return `${documents} document${documents === 1 ? '' : 's'}`;
  if (tool === 'get_document')
    return `${clip(
      body
        .split('\n')
        .find((line) => line.startsWith('file: '))
        ?.slice(6) ?? 'document',
    )}, ${sections} sections`;
  const firstLine = body.split('\n').find((line) => line.trim() && !line.startsWith('The content below')) ?? '';
  return clip(firstLine || 'no result');
}

const clip = (text: string): string => (text.length > SUMMARY_CHARS ? `${text.slice(0, SUMMARY_CHARS - 1)}…` : text);
