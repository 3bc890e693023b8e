import { afterAll } from 'vitest';
import { dropFileTables } from './database.js';

/**
 * Each test file's tables are dropped when it is done (database.ts). A setup file's hooks are
 * registered first, so this runs after the file's own `afterAll` hooks have stopped its servers.
 */
afterAll(dropFileTables);
