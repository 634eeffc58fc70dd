// Entry point of the dashboard bundle: renders the app into <body>.
import { render } from 'preact';
// First, so the pages' own stylesheets come after the base one and may refine it.
import './styles/app.css';
import { html } from './lib/html.js';
import { App } from './app.js';

render(html`<${App} />`, document.getElementById('app') as HTMLElement);
