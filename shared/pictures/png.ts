import { crc32 } from 'node:zlib';
import {
  concatBytes,
  type PictureProblem,
  problem,
  rangesBuilder,
  text,
  u32be,
  type Walk,
} from './container-bytes.js';
import { exifOrientation, orientationExif } from './exif-orientation.js';

// Text, time, Exif and content credentials (C2PA's caBX, which can hold an Exif assertion) go.
const PNG_METADATA = new Set(['tEXt', 'zTXt', 'iTXt', 'eXIf', 'tIME', 'caBX']);

const be32 = (value: number) => [value >>> 24, (value >>> 16) & 0xff, (value >>> 8) & 0xff, value & 0xff];

const pngChunk = (type: string, data: Uint8Array) => {
  const typeAndData = concatBytes(
    [...type].map((character) => character.charCodeAt(0)),
    data,
  );
  return concatBytes(be32(data.length), typeAndData, be32(crc32(typeAndData)));
};

export const walkPng = (bytes: Uint8Array): Walk | PictureProblem => {
  if (u32be(bytes, 8) !== 13 || text(bytes, 12, 4) !== 'IHDR' || bytes.length < 33)
    return problem('the PNG does not start with its header chunk');
  const ranges = rangesBuilder(0);
  let firstData: number | undefined;
  let orientation: number | undefined;
  let exifSeen = false;
  let at = 8;
  while (at + 12 <= bytes.length) {
    const length = u32be(bytes, at);
    const type = text(bytes, at + 4, 4);
    const end = at + 12 + length; // length, type, data, CRC
    if (!/^[A-Za-z]{4}$/.test(type)) return problem('a PNG chunk type is invalid');
    if (end > bytes.length) return problem('a PNG chunk runs past the end of the file');
    if (PNG_METADATA.has(type)) ranges.drop(at, end);
    if (type === 'eXIf' && !exifSeen) {
      exifSeen = true;
      orientation = exifOrientation(bytes, at + 8, end - 4);
    }
    if (type === 'IDAT') firstData ??= at;
    if (type === 'IEND') {
      if (firstData === undefined) return problem('the PNG has no image data');
      ranges.endAt(end); // anything after IEND goes
      // The orientation goes before the image data, where decoders look for it.
      const insert = orientation
        ? { at: firstData, bytes: pngChunk('eXIf', orientationExif(orientation)) }
        : undefined;
      return { keep: ranges.keep, width: u32be(bytes, 16), height: u32be(bytes, 20), insert };
    }
    at = end;
  }
  return problem('the PNG ends before its IEND chunk');
};
