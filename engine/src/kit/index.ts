/**
 * `@svc/engine/kit`: the plumbing two plugins would otherwise each write (Benthos keeps the like
 * in `public/service`'s helpers). A plugin imports it from `@svc/engine/kit`, as it imports the
 * plugin API from `@svc/engine`; the main door stays the component API.
 */
export { FOREVER, WindowTable, windowTableBytes, type WindowState } from './window-table.js';
export { ConfigDocument, parseConfigDocument, readConfigDocument, type DocumentFormat, type DocumentOptions } from '../config/config-document.js';
