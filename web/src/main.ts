// Entry point of the dashboard bundle: renders the app into <body>.
import { render } from 'preact';
import { html } from './lib/html.js';
import { App } from './app.js';
import './styles/app.css';

render(html`<${App} />`, document.getElementById('app') as HTMLElement);
