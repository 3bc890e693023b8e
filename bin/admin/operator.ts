import { userInfo } from 'node:os';
import type { AuditActor } from '../../shared/audit/record.js';

/** What the operator acts as when the OS names nobody usable. */
const UNNAMED = 'operator';

/**
 * An OS user name as an audit actor id may be written (letters, digits and `. _ : @ -`, starting
 * with a letter or digit, at most 128): anything else becomes `-`, leading punctuation goes.
 */
export const operatorId = (userName: string): string => {
  const safe = userName
    .replace(/[^A-Za-z0-9._:@-]/g, '-')
    .replace(/^[^A-Za-z0-9]+/, '')
    .slice(0, 128);
  return safe === '' ? UNNAMED : safe;
};

/** The OS user running the CLI; a container without a passwd entry still has $USER, or nobody. */
const osUserName = (env: NodeJS.ProcessEnv): string => {
  try {
    return userInfo().username;
  } catch {
    return env.USER ?? env.USERNAME ?? '';
  }
};

/** Who the CLI's audit records name as acting: the operator, by their OS user name. */
export const operatorActor = (env = process.env): AuditActor => ({
  type: 'operator',
  id: operatorId(osUserName(env)),
});
