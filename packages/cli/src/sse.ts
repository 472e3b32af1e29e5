/**
 * The `data:` messages of a Server-Sent Events body, parsed as JSON, as they arrive. Comment lines (`: ping`)
 * are skipped; a message whose data is not JSON is yielded as its raw string.
 */
export async function* sseMessages(body: AsyncIterable<Uint8Array>): AsyncGenerator<unknown> {
  const decoder = new TextDecoder();
  let buf = '';
  for await (const chunk of body) {
    buf += decoder.decode(chunk, { stream: true }).replace(/\r\n?/g, '\n');
    let cut = buf.indexOf('\n\n');
    while (cut >= 0) {
      const data = buf
        .slice(0, cut)
        .split('\n')
        .filter((l) => l.startsWith('data:'))
        .map((l) => l.slice(5).replace(/^ /, ''));
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
