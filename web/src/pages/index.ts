// The signed-in pages by their first hash segment (#/queue -> 'queue'): the app's router and its navigation read this list.
import type { VNode } from 'preact';
import type { Route } from '../lib/router.js';
import { farmPage } from './farm.js';
import { wallPage } from './wall.js';
import { queuePage } from './queue.js';
import { printerPage } from './printer.js';
import { addPrinterPage, printerSettingsPage } from './printer-setup.js';
import { materialsPage } from './materials.js';
import { analyticsPage } from './analytics.js';
import { settingsPage } from './settings.js';
import { nodesPage } from './nodes.js';

export interface PageDef {
  /** First hash segment; '' is the home page (the farm grid). */
  path: string;
  title: string;
  /** Shown in the navigation bar. */
  nav: boolean;
  /** Scope needed to see the page; the nav hides it and the page explains when missing. */
  scope?: string;
  /** Full-screen without the navigation bar (the wall display). */
  bare?: boolean;
  component: (props: { route: Route }) => VNode | null;
}

// Each page module adds its entry here, in navigation order.
export const PAGES: PageDef[] = [
  farmPage,
  wallPage,
  queuePage,
  printerPage,
  addPrinterPage,
  printerSettingsPage,
  materialsPage,
  analyticsPage,
  nodesPage,
  settingsPage,
];
