import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ImageType } from '../../shared/pictures/image-type.js';
import { cleanPicture } from '../../shared/pictures/picture-metadata.js';
import {
  ascii,
  cleanedPicture,
  concat,
  contains,
  EXIF_HEADER,
  exifWithGps,
  GIF,
  gif,
  gifExtension,
  gifGraphicControl,
  gifImage,
  gifLooping,
  gifScreen,
  JPEG,
  JPEG_END,
  JPEG_START,
  jfif,
  jpeg,
  jpegExif,
  jpegFrame,
  jpegScan,
  jpegSegment,
  jpegTablesAndScan,
  PNG,
  PNG_SIGNATURE,
  png,
  pngChunk,
  pngData,
  pngEnd,
  pngHeader,
  WEBP,
  webp,
  webpAlphaAndLossy,
  webpChunk,
  webpExtended,
  webpLossless,
} from '../support/picture-bytes.js';

/**
 * What the metadata walk keeps of a picture: everything but its metadata blocks, byte for byte,
 * and its dimensions; a malformed container is a problem, never an exception.
 */
const problemOf = (bytes: Uint8Array, type: ImageType) => {
  const result = cleanPicture(bytes, type);
  return 'problem' in result ? result.problem : undefined;
};

describe('JPEG', () => {
  const xmp = jpegSegment(0xe1, ascii('http://ns.adobe.com/xap/1.0/\0<x:xmpmeta>GPS</x:xmpmeta>'));
  const iptc = jpegSegment(0xed, ascii('Photoshop 3.0\u00008BIM city'));
  const maker = jpegSegment(0xe5, ascii('maker notes'));
  const app15 = jpegSegment(0xef, ascii('more notes'));
  const comment = jpegSegment(0xfe, ascii('taken at home'));
  const icc = jpegSegment(0xe2, ascii('ICC_PROFILE\u0000\u0001\u0001colours'));
  const adobe = jpegSegment(0xee, [...ascii('Adobe'), 0, 100, 0, 0, 0, 0, 2]);

  it('drops Exif, XMP, IPTC, other APPn and comments; keeps JFIF, ICC and Adobe byte for byte', () => {
    const photo = jpeg(
      jfif,
      jpegExif,
      xmp,
      icc,
      iptc,
      maker,
      adobe,
      app15,
      comment,
      jpegFrame(1, 1),
      jpegTablesAndScan,
    );
    const result = cleanedPicture(photo, 'image/jpeg');
    expect(result.bytes).toEqual(jpeg(jfif, icc, adobe, jpegFrame(1, 1), jpegTablesAndScan));
    expect([result.width, result.height]).toEqual([1, 1]);
  });

  it('leaves a picture without metadata as it is', () => {
    expect(cleanedPicture(JPEG, 'image/jpeg').bytes).toEqual(JPEG);
  });

  it('reads the size from the first frame header, progressive included, not from a Huffman table (C4)', () => {
    const progressive = jpegSegment(0xc2, [8, 0x0b, 0xb8, 0x0f, 0xa0, 1, 1, 0x11, 0]); // 4000 x 3000
    const result = cleanedPicture(jpeg(jfif, progressive, jpegTablesAndScan), 'image/jpeg');
    expect([result.width, result.height]).toEqual([4000, 3000]);
  });

  it('walks every scan: stuffed bytes and restart markers stay, a comment between scans goes', () => {
    const data = [0x12, 0xff, 0x00, 0x34, 0xff, 0xd0, 0x56];
    const secondScan = [...jpegScan, ...data];
    const photo = jpeg(jfif, jpegFrame(1, 1), jpegTablesAndScan, comment, secondScan);
    expect(cleanedPicture(photo, 'image/jpeg').bytes).toEqual(
      jpeg(jfif, jpegFrame(1, 1), jpegTablesAndScan, secondScan),
    );
  });

  it('drops what follows the end marker (a second picture with its own Exif)', () => {
    expect(cleanedPicture(concat(JPEG, JPEG_START, jpegExif), 'image/jpeg').bytes).toEqual(JPEG);
  });

  it('takes data without its end marker as far as it goes (browsers show it), its Exif dropped', () => {
    const truncated = concat(JPEG_START, jfif, jpegFrame(1, 1), jpegTablesAndScan);
    expect(cleanedPicture(truncated, 'image/jpeg').bytes).toEqual(truncated);
    const photo = concat(JPEG_START, jfif, jpegExif, jpegFrame(1, 1), jpegTablesAndScan, [0x12, 0xff]);
    expect(cleanedPicture(photo, 'image/jpeg').bytes).toEqual(concat(truncated, [0x12, 0xff]));
  });

  it('skips stray bytes between segments to the next marker (dropping them); keeps fill bytes', () => {
    const clean = jpeg(jfif, jpegFrame(1, 1), jpegTablesAndScan);
    expect(
      cleanedPicture(jpeg(jfif, [0x00, 0x12], jpegFrame(1, 1), jpegTablesAndScan), 'image/jpeg').bytes,
    ).toEqual(clean);
    expect(
      cleanedPicture(jpeg(jfif, [0xff, 0x00], jpegFrame(1, 1), jpegTablesAndScan), 'image/jpeg').bytes,
    ).toEqual(clean);
    const filled = jpeg(jfif, [0xff, 0xff], jpegFrame(1, 1), jpegTablesAndScan);
    expect(cleanedPicture(filled, 'image/jpeg').bytes).toEqual(filled);
  });

  it.each([
    ['a segment longer than the file', concat(JPEG_START, jfif.slice(0, 10))],
    ['a segment length under 2', concat(JPEG_START, [0xff, 0xe0, 0x00, 0x01], JPEG_END)],
    ['no frame header', jpeg(jfif, jpegScan)],
    ['no scan', jpeg(jfif, jpegFrame(1, 1))],
    ['a second start marker', jpeg(JPEG_START, jfif, jpegFrame(1, 1), jpegTablesAndScan)],
    ['a frame header too short', jpeg(jfif, jpegSegment(0xc0, [8, 0, 1]), jpegTablesAndScan)],
    ['only the start marker', Uint8Array.from([0xff, 0xd8, 0xff])],
  ])('refuses %s', (_case, bytes) => {
    expect(problemOf(bytes, 'image/jpeg')).toMatch(/JPEG/);
  });
});

describe('PNG', () => {
  const text = pngChunk('tEXt', ascii('Location\u0000Paris'));
  const compressed = pngChunk('zTXt', ascii('Comment\u0000\u0000x'));
  const international = pngChunk(
    'iTXt',
    ascii('XML:com.adobe.xmp\u0000\u0000\u0000\u0000\u0000<x:xmpmeta/>'),
  );
  const exif = pngChunk('eXIf', exifWithGps);
  const time = pngChunk('tIME', [0x07, 0xea, 11, 28, 17, 0, 0]);
  const gamma = pngChunk('gAMA', [0, 0, 0xb1, 0x8f]);
  const density = pngChunk('pHYs', [0, 0, 0x0b, 0x13, 0, 0, 0x0b, 0x13, 1]);

  it('drops tEXt, zTXt, iTXt, eXIf and tIME; keeps the other chunks with their CRCs', () => {
    const picture = png(
      pngHeader(640, 480),
      text,
      gamma,
      exif,
      compressed,
      density,
      time,
      pngData,
      international,
      pngEnd,
    );
    const result = cleanedPicture(picture, 'image/png');
    expect(result.bytes).toEqual(png(pngHeader(640, 480), gamma, density, pngData, pngEnd));
    expect([result.width, result.height]).toEqual([640, 480]);
  });

  it('leaves a picture without metadata as it is, and drops what follows IEND', () => {
    expect(cleanedPicture(PNG, 'image/png').bytes).toEqual(PNG);
    expect(cleanedPicture(concat(PNG, text), 'image/png').bytes).toEqual(PNG);
  });

  it('reads a declared size as it is (the limit is the handler’s)', () => {
    const result = cleanedPicture(png(pngHeader(1_000_000, 1_000_000), pngData, pngEnd), 'image/png');
    expect([result.width, result.height]).toEqual([1_000_000, 1_000_000]);
  });

  it.each([
    ['a header that is not first', png(gamma, pngHeader(1, 1), pngData, pngEnd)],
    ['no header', png(pngData, pngEnd)],
    ['a chunk longer than the file', png(pngHeader(1, 1), pngData.slice(0, 12))],
    ['no IEND', png(pngHeader(1, 1), pngData)],
    ['no image data', png(pngHeader(1, 1), pngEnd)],
    ['a chunk type that is not letters', png(pngHeader(1, 1), pngChunk('ab1d'), pngData, pngEnd)],
    ['only the signature', Uint8Array.from(PNG_SIGNATURE)],
  ])('refuses %s', (_case, bytes) => {
    expect(problemOf(bytes, 'image/png')).toMatch(/PNG/);
  });
});

describe('GIF', () => {
  const comment = gifExtension(0xfe, ascii('taken at home'));
  const xmp = gifExtension(0xff, ascii('XMP DataXMP'), ascii('<x:xmpmeta>GPS</x:xmpmeta>'));
  // A local colour table of 4 colours (packed 0x81) before the LZW data.
  const withLocalColours = [
    0x2c,
    0,
    0,
    0,
    0,
    1,
    0,
    1,
    0,
    0x81,
    ...new Array<number>(12).fill(7),
    2,
    1,
    0x44,
    0,
  ];

  it('drops comments and application extensions but looping; keeps graphic control and images', () => {
    const animation = gif(
      gifLooping,
      comment,
      gifGraphicControl,
      gifImage,
      xmp,
      gifGraphicControl,
      withLocalColours,
    );
    const result = cleanedPicture(animation, 'image/gif');
    expect(result.bytes).toEqual(
      gif(gifLooping, gifGraphicControl, gifImage, gifGraphicControl, withLocalColours),
    );
  });

  it('reads the logical screen size, leaves a plain picture as it is and drops what follows the trailer', () => {
    const result = cleanedPicture(concat(gifScreen(300, 200), gifImage, [0x3b]), 'image/gif');
    expect([result.width, result.height]).toEqual([300, 200]);
    expect(cleanedPicture(GIF, 'image/gif').bytes).toEqual(GIF);
    expect(cleanedPicture(concat(GIF, comment), 'image/gif').bytes).toEqual(GIF);
  });

  // An image descriptor: left, top, width, height, no local colour table; then one sub-block.
  const frame = (left: number, top: number, width: number, height: number) => [
    0x2c,
    ...[left, top, width, height].flatMap((value) => [value & 0xff, value >> 8]),
    0,
    2,
    2,
    0x44,
    0x01,
    0,
  ];

  it('takes the largest extent of the logical screen and every frame (browsers grow the canvas)', () => {
    const wide = cleanedPicture(concat(gifScreen(1, 1), frame(0, 0, 9000, 1), [0x3b]), 'image/gif');
    expect([wide.width, wide.height]).toEqual([9000, 1]);
    const placed = cleanedPicture(
      concat(gifScreen(10, 10), gifImage, frame(5, 20, 10, 3), [0x3b]),
      'image/gif',
    );
    expect([placed.width, placed.height]).toEqual([15, 23]);
  });

  it('takes the frames’ extent for a logical screen of 0 x 0', () => {
    const result = cleanedPicture(concat(gifScreen(0, 0), frame(0, 0, 3, 2), [0x3b]), 'image/gif');
    expect([result.width, result.height]).toEqual([3, 2]);
  });

  it('takes data that ends between blocks without its trailer (browsers show it), its comment dropped', () => {
    const untrailed = concat(gifScreen(1, 1), gifGraphicControl, gifImage);
    expect(cleanedPicture(untrailed, 'image/gif').bytes).toEqual(untrailed);
    expect(cleanedPicture(concat(untrailed, comment), 'image/gif').bytes).toEqual(untrailed);
  });

  it.each([
    ['image data past the end', concat(gifScreen(1, 1), gifImage.slice(0, 13))],
    ['an extension past the end', concat(gifScreen(1, 1), comment.slice(0, 5))],
    ['an unknown block', gif([0x00], gifImage)],
    ['no image', gif(gifGraphicControl)],
    ['a colour table past the end', Uint8Array.from(gifScreen(1, 1).slice(0, 15))],
    ['only the header', Uint8Array.from(ascii('GIF89a'))],
  ])('refuses %s', (_case, bytes) => {
    expect(problemOf(bytes, 'image/gif')).toMatch(/GIF/);
  });
});

describe('WebP', () => {
  const exif = webpChunk('EXIF', exifWithGps);
  const xmp = webpChunk('XMP ', ascii('<x:xmpmeta>GPS</x:xmpmeta>')); // odd length: padded

  it('drops EXIF and XMP, clears their VP8X flags and rewrites the RIFF size', () => {
    const photo = webp(webpExtended(0x10 | 0x08 | 0x04, 3000, 2000), webpAlphaAndLossy, exif, xmp);
    const result = cleanedPicture(photo, 'image/webp');
    expect(result.bytes).toEqual(webp(webpExtended(0x10, 3000, 2000), webpAlphaAndLossy));
    expect([result.width, result.height]).toEqual([3000, 2000]);
  });

  it('reads a lossless or lossy header, leaves a plain picture as it is and drops what follows the RIFF', () => {
    expect(cleanedPicture(concat(WEBP, ascii('junk')), 'image/webp')).toEqual({
      bytes: WEBP,
      width: 1,
      height: 1,
    });
    const lossy = webp(webpAlphaAndLossy.slice(20)); // the VP8 chunk alone
    expect(cleanedPicture(lossy, 'image/webp')).toMatchObject({ bytes: lossy, width: 1, height: 1 });
  });

  it.each([
    ['a RIFF size past the end', WEBP.slice(0, -2)],
    ['a chunk past the RIFF', webp(webpLossless, ascii('EXIF'), [0xff, 0, 0, 0])],
    ['an unknown first chunk', webp(exif, webpLossless)],
    ['an extended header without image data', webp(webpExtended(0x08, 1, 1), exif)],
    ['a lossy header without its start code', webp(webpChunk('VP8 ', new Array<number>(10).fill(0)))],
    ['only the RIFF header', concat(ascii('RIFF'), [4, 0, 0, 0], ascii('WEBP'))],
  ])('refuses %s', (_case, bytes) => {
    expect(problemOf(bytes, 'image/webp')).toMatch(/WebP/);
  });
});

describe('content credentials (C2PA), which can hold an Exif assertion with the GPS position', () => {
  // A JUMBF box holding an Exif assertion (the bytes that matter here: the GPS IFD).
  const jumbf = [...ascii('jumb'), ...ascii('c2pa.assertions stds.exif'), ...EXIF_HEADER, ...exifWithGps];

  it.each([
    [
      'JPEG APP11',
      jpeg(jfif, jpegSegment(0xeb, jumbf), jpegFrame(1, 1), jpegTablesAndScan),
      JPEG,
      'image/jpeg',
    ],
    ['PNG caBX', png(pngHeader(1, 1), pngChunk('caBX', jumbf), pngData, pngEnd), PNG, 'image/png'],
    [
      'WebP C2PA',
      webp(webpExtended(0, 1, 1), webpLossless, webpChunk('C2PA', jumbf)),
      webp(webpExtended(0, 1, 1), webpLossless),
      'image/webp',
    ],
  ] as const)('%s goes', (_case, picture, withoutCredentials, type) => {
    expect(contains(picture, exifWithGps)).toBe(true);
    expect(cleanedPicture(picture, type).bytes).toEqual(withoutCredentials);
  });
});

describe('any bytes after a signature', () => {
  const SEED = Number(process.env.FUZZ_SEED ?? Date.now() % 2 ** 31);
  const pictures: [ImageType, Uint8Array][] = [
    ['image/jpeg', jpeg(jfif, jpegExif, jpegFrame(1, 1), jpegTablesAndScan)],
    ['image/png', png(pngHeader(1, 1), pngChunk('tEXt', ascii('a\u0000b')), pngData, pngEnd)],
    ['image/gif', gif(gifExtension(0xfe, ascii('c')), gifGraphicControl, gifImage)],
    ['image/webp', webp(webpExtended(0x08, 1, 1), webpAlphaAndLossy, webpChunk('EXIF', [...EXIF_HEADER]))],
  ];
  const SIGNATURE_LENGTHS: Record<ImageType, number> = {
    'image/jpeg': 3,
    'image/png': 8,
    'image/gif': 6,
    'image/webp': 12,
  };

  it('give a problem or a picture that cleaning again leaves as it is, never an exception', () => {
    console.log(`picture metadata property: seed ${SEED}`);
    fc.assert(
      fc.property(
        fc.constantFrom(...pictures),
        fc.nat(),
        fc.uint8Array({ maxLength: 200 }),
        fc.boolean(),
        ([type, picture], cut, tail, keepEnd) => {
          // A valid picture's first bytes (its signature at least), arbitrary bytes, maybe its end.
          const start = SIGNATURE_LENGTHS[type] + (cut % (picture.length - SIGNATURE_LENGTHS[type] + 1));
          const bytes = concat(picture.slice(0, start), tail, keepEnd ? picture.slice(start) : []);
          const once = cleanPicture(bytes, type);
          if ('problem' in once) return;
          expect(cleanPicture(once.bytes, type)).toEqual(once);
        },
      ),
      { seed: SEED, numRuns: 2000 },
    );
  });

  it('valid pictures with metadata come out without it, whatever else they hold', () => {
    for (const [type, picture] of pictures) {
      const once = cleanedPicture(picture, type);
      expect(once.bytes.length).toBeLessThan(picture.length);
      expect(cleanedPicture(once.bytes, type)).toEqual(once);
    }
  });
});
