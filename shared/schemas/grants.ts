import { MAX_GRANTS_PER_HOLDER } from '../domain/limits.js';
import * as z from '../zod.js';
import { identifier } from './common.js';

/** Role, managed role, policy or group ids one holder has: the store refuses more than the limit. */
export const grantedIds = z.array(identifier).check(z.maxLength(MAX_GRANTS_PER_HOLDER));
