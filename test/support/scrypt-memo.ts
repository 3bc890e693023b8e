import { createRequire, syncBuiltinESMExports } from 'node:module';

/**
 * Test processes remember what scrypt derived, per password, salt, length and parameters.
 * scrypt is a pure function, so an answer remembered is the answer it would compute; only the
 * time differs. Each derivation costs about 150 ms of CPU here even at the floor tests use
 * (N=2^15), and the suite ran about 370 of them, most of them a person's sign-in checking the
 * password their account was given moments before in the same process. What a test checks (a
 * wrong password refused, a rehash to new parameters) still computes: its inputs are new.
 * Installed once per process, before the service's modules take `scrypt` from `node:crypto`.
 */
type ScryptCallback = (error: Error | null, derived: Buffer) => void;
type Scrypt = (
  password: string | Buffer,
  salt: Buffer,
  length: number,
  options: Record<string, number>,
  callback: ScryptCallback,
) => void;

const crypto = createRequire(import.meta.url)('node:crypto') as { scrypt: Scrypt & { remembers?: true } };

if (!crypto.scrypt.remembers) {
  const compute = crypto.scrypt;
  const derived = new Map<string, Buffer>();
  const remembering: Scrypt & { remembers?: true } = (password, salt, length, options, callback) => {
    const { N, r, p } = options;
    const key = [
      N,
      r,
      p,
      length,
      Buffer.from(salt).toString('base64'),
      Buffer.from(password).toString('base64'),
    ].join(':');
    const known = derived.get(key);
    if (known) {
      process.nextTick(callback, null, Buffer.from(known));
      return;
    }
    compute(password, salt, length, options, (error, answer) => {
      if (!error) derived.set(key, Buffer.from(answer));
      callback(error, answer);
    });
  };
  remembering.remembers = true;
  crypto.scrypt = remembering;
  // `import { scrypt } from 'node:crypto'` reads the export again only after this.
  syncBuiltinESMExports();
}
