// htm bound to Preact: the dashboard's JSX-free templates (html`<div>…</div>`), no compile step beyond esbuild.
export { html } from 'htm/preact';
