import { type Converter, DossierError } from '@dossier/core/conversion';

/** UTF-16LE name of the stream that Office's password protection adds (MS-OFFCRYPTO §2.3.4). */
const ENCRYPTION_INFO = new Uint8Array([...'EncryptionInfo'].flatMap((c) => [c.charCodeAt(0), 0]));

function contains(bytes: Uint8Array, needle: Uint8Array): boolean {
  const first = needle[0];
  for (let i = bytes.indexOf(first ?? 0); i >= 0 && i <= bytes.length - needle.length; i = bytes.indexOf(first ?? 0, i + 1)) {
    if (needle.every((b, k) => bytes[i + k] === b)) return true;
  }
  return false;
}

/**
 * OLE compound files are either password-protected OOXML (the encrypted package sits inside an OLE
 * container) or legacy binary Office (.doc/.xls/.ppt, .msg). Neither is converted; the error says
 * which one it is and what to do.
 */
export const oleConverter: Converter = {
  name: 'ole',
  types: ['application/x-ole-storage'],
  async convert({ bytes }) {
    if (contains(bytes, ENCRYPTION_INFO)) {
      throw new DossierError(
        'unsupported_format',
        'This Office file is encrypted (password-protected); encrypted or legacy binary Office format not supported — remove the password and upload it again',
      );
    }
    throw new DossierError(
      'unsupported_format',
      'Encrypted or legacy binary Office format not supported (.doc, .xls, .ppt, .msg); save it as .docx, .xlsx or .pptx and upload it again',
    );
  },
};
