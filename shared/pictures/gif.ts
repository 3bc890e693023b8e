import { type PictureProblem, problem, rangesBuilder, text, u16le, type Walk } from './container-bytes.js';

/** Where a GIF's chain of data sub-blocks (each a length byte, then data; 0 ends) ends, or -1. */
const endOfSubBlocks = (bytes: Uint8Array, from: number) => {
  let at = from;
  while (at < bytes.length) {
    const length = bytes[at] as number;
    if (length === 0) return at + 1;
    at += 1 + length;
  }
  return -1;
};

const colourTableLength = (packed: number) => (packed & 0x80 ? 3 * 2 ** ((packed & 0x07) + 1) : 0);
// Application extensions that only make an animation loop; any other (XMP among them) goes.
const LOOPING = new Set(['NETSCAPE2.0', 'ANIMEXTS1.0']);

export const walkGif = (bytes: Uint8Array): Walk | PictureProblem => {
  const ranges = rangesBuilder(0);
  let hasImage = false;
  // Browsers grow the canvas to hold every frame, so the size is the largest extent of them all.
  let width = u16le(bytes, 6);
  let height = u16le(bytes, 8);
  const finished = (end: number) => {
    if (!hasImage) return problem('the GIF has no image');
    ranges.endAt(end);
    return { keep: ranges.keep, width, height };
  };
  let at = 13 + colourTableLength(bytes[10] ?? 0); // header, logical screen, global colour table
  while (at < bytes.length) {
    const block = bytes[at];
    if (block === 0x3b) return finished(at + 1); // anything after the trailer goes
    let end: number;
    if (block === 0x2c) {
      hasImage = true;
      width = Math.max(width, u16le(bytes, at + 1) + u16le(bytes, at + 5));
      height = Math.max(height, u16le(bytes, at + 3) + u16le(bytes, at + 7));
      // Descriptor (10 bytes), local colour table, LZW minimum code size, data sub-blocks.
      end = endOfSubBlocks(bytes, at + 10 + colourTableLength(bytes[at + 9] ?? 0) + 1);
    } else if (block === 0x21) {
      const label = bytes[at + 1];
      end = endOfSubBlocks(bytes, at + 2);
      const isLooping = bytes[at + 2] === 11 && LOOPING.has(text(bytes, at + 3, 11));
      if (end !== -1 && (label === 0xfe || (label === 0xff && !isLooping))) ranges.drop(at, end);
    } else return problem('a GIF block is invalid');
    if (end === -1) return problem('a GIF block runs past the end of the file');
    at = end;
  }
  // A GIF whose data ends between blocks without its trailer is shown as far as it goes.
  if (at > bytes.length) return problem('the GIF ends within its colour table');
  return finished(bytes.length);
};
