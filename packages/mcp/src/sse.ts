/**
 * The `data:` messages of a Server-Sent Events body, parsed as JSON, as they arrive. Comment lines (`: ping`)
 * go to `onComment` when given (the research stream says there what it waits on); a message whose data is not
 * JSON is yielded as its raw string.
 */
export async function* sseMessages(body: AsyncIterable<Uint8Array>, onComment?: (text: string) => void): AsyncGenerator<unknown> {
  const decoder = new TextDecoder();
  let buf = '';
  for await (const chunk of body) {
    buf += decoder.decode(chunk, { stream: true }).replace(/\r\n?/g, '\n');
    let cut = buf.indexOf('\n\n');
    while (cut >= 0) {
      const lines = buf.slice(0, cut).split('\n');
      if (onComment) for (const l of lines) if (l.startsWith(':')) onComment(l.slice(1).trim());
      const data = lines.filter((l) => l.startsWith('data:')).map((l) => l.slice(5).replace(/^ /, ''));
      buf = buf.slice(cut + 2);
      if (data.length) yield parse(data.join('\n'));
      cut = buf.indexOf('\n\n');
    }
  }
}

function parse(data: string): unknown {
  try {
    return JSON.parse(data);
  } catch {
    return data;
  }
}
