import * as z from '../zod.js';
import { identifier } from './common.js';

/*
 * The catalogue's names, apart from its schemas: the routes that only name permissions (users,
 * roles) then build these few at load, not the whole catalogue's (`npm run bench`, schemas built).
 */

/**
 * `MODULE.ACCESSTYPE` (`USER.LIST`) in the catalogue; a plugin's definition ids in its dependencies.
 * Requests may name any identifier: the handler names each unknown one.
 */
export const permissionId = identifier.check(z.maxLength(100));

/** A plugin permission's module or action name, as its plugin's definitions file writes it. */
export const pluginAction = identifier.check(z.maxLength(200));

/** A module or access type of the catalogue (`USER`, `LIST`). */
export const catalogueWord = z.string().check(z.minLength(1), z.maxLength(100), z.regex(/^[A-Z][A-Z0-9_]*$/));
