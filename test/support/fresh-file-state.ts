import { vi } from 'vitest';
import { reloadConfig } from '../../shared/config.js';

/**
 * Before each test file that shares its worker's process with the files before it
 * (vitest.config.ts): the environment as the worker started, the settings read again (and with
 * them what was built from them: `perStoreSettings` in shared/config.ts), real timers, no spies.
 */
const holder = globalThis as { idpStartingEnvironment?: Record<string, string | undefined> };
holder.idpStartingEnvironment ??= { ...process.env };
const starting = holder.idpStartingEnvironment;
for (const name of Object.keys(process.env)) if (!(name in starting)) delete process.env[name];
Object.assign(process.env, starting);
reloadConfig();
vi.useRealTimers();
vi.restoreAllMocks();
