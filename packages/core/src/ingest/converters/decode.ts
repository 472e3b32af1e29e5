/** Decode text bytes: UTF-16 by BOM, otherwise UTF-8 (BOM stripped). Line endings normalised to \n. */
export function decodeText(bytes: Uint8Array): string {
  let text: string;
  if (bytes[0] === 0xff && bytes[1] === 0xfe) text = new TextDecoder('utf-16le').decode(bytes.subarray(2));
  else if (bytes[0] === 0xfe && bytes[1] === 0xff) text = new TextDecoder('utf-16be').decode(bytes.subarray(2));
  else text = new TextDecoder('utf-8').decode(bytes);
  return text.replace(/^\uFEFF/, '').replace(/\r\n?/g, '\n');
}
