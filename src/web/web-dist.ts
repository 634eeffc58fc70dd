// Where the built dashboard lives (shared by the build script, the static file server, the binary and the doctor).

/** The built dashboard, relative to the repository root (the key prefix of readAsset() and of the binary's assets). */
export const WEB_DIST = 'web/dist';

/** Content-hashed files sit under this URL path; their names change with their bytes, so they may be cached forever. */
export const WEB_ASSETS_DIR = 'assets';

/** The one line the server shows at / when the source tree has no build yet. */
export const WEB_BUILD_HINT = 'The dashboard is not built yet: run `npm run build:web` (npm start does it for you), then reload.';

/** The API reference page (served at /docs), written beside index.html by the web build. */
export const WEB_DOCS_PAGE = 'docs.html';
