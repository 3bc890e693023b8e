import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * DynamoDB Local listens on every address of the machine (the bundled package has no host
 * option) and takes any credentials. Without `-sharedDb` it keeps one database per access key id
 * and region, so `npm start` uses an access key id of its own, random, kept in the data directory
 * (readable by its owner only): another machine on the network, or a web page reaching the port
 * through DNS rebinding, finds an empty database rather than the service's table.
 */
export const LOCAL_REGION = 'us-east-1';

const KEY_FILE = 'access-key-id';
/** What DynamoDB Local named the one database of `-sharedDb`, which earlier versions used. */
const SHARED_DATABASE = 'shared-local-instance.db';

const newAccessKeyId = () => `LOCAL${randomBytes(12).toString('hex').toUpperCase()}`;

/** The access key id of the database in `directory` (`<data>/dynamodb`); undefined when none was made. */
export const storedAccessKeyId = (directory: string): string | undefined => {
  const file = join(directory, KEY_FILE);
  return existsSync(file) ? readFileSync(file, 'utf8').trim() || undefined : undefined;
};

/**
 * The access key id for `npm start`: the one kept in `directory`, or a new one (kept; an earlier
 * version's shared database becomes its database); in memory, a new one each run.
 */
export const localAccessKeyId = (directory: string | undefined): string => {
  if (directory === undefined) return newAccessKeyId();
  // DynamoDB Local names its file after the key id: a folder others may list would show it. The
  // data directory around it is made 0700 when it is made here (one chosen with IDP_DATA_DIR and
  // made before is left as it is).
  mkdirSync(directory, { recursive: true, mode: 0o700 });
  chmodSync(directory, 0o700);
  const stored = storedAccessKeyId(directory);
  if (stored) return stored;
  const created = newAccessKeyId();
  const shared = join(directory, SHARED_DATABASE);
  if (existsSync(shared)) renameSync(shared, join(directory, `${created}_${LOCAL_REGION}.db`));
  writeFileSync(join(directory, KEY_FILE), `${created}\n`, { mode: 0o600 });
  return created;
};
