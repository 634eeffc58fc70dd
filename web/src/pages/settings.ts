// The Settings page (#/settings/organization|users|keys|webhooks|notifications|homeassistant): a sub-navigation and the part the hash names.
import { html } from '../lib/html.js';
import type { Route } from '../lib/router.js';
import { PageHeader } from '../components/ui.js';
import type { PageDef } from './index.js';
import { OrganizationSettings } from './settings-organization.js';
import { UsersSettings } from './settings-users.js';
import { KeysSettings } from './settings-keys.js';
import { WebhooksSettings } from './settings-webhooks.js';
import { NotificationsSettings } from './settings-notifications.js';
import { HomeAssistantSettings } from './settings-homeassistant.js';
import '../styles/settings.css';

const PARTS = [
  { path: 'organization', label: 'Organization', component: OrganizationSettings },
  { path: 'users', label: 'Users', component: UsersSettings },
  { path: 'keys', label: 'API keys', component: KeysSettings },
  { path: 'webhooks', label: 'Webhooks', component: WebhooksSettings },
  { path: 'notifications', label: 'Notifications', component: NotificationsSettings },
  { path: 'homeassistant', label: 'Home Assistant', component: HomeAssistantSettings },
] as const;

export function SettingsPage({ route }: { route: Route }) {
  const part = PARTS.find((p) => p.path === route.parts[1]) ?? PARTS[0];
  const Part = part.component;
  return html`<div class="settings-page">
    <${PageHeader} title="Settings" />
    <nav class="subnav" aria-label="Settings sections">
      <ul>
        ${PARTS.map((p) => html`<li><a href=${`#/settings/${p.path}`} aria-current=${p === part ? 'page' : undefined}>${p.label}</a></li>`)}
      </ul>
    </nav>
    <section class="settings-part" aria-labelledby="settings-part-title">
      <h2 id="settings-part-title">${part.label}</h2>
      <${Part} route=${route} />
    </section>
  </div>`;
}

export const settingsPage: PageDef = { path: 'settings', title: 'Settings', nav: true, component: SettingsPage };
