/** Stylesheets are bundled by esbuild (shared/console/console-build.ts). */
declare module '*.css';
