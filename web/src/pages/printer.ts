// Printer page (#/printers/<id>): status, current job, cameras and controls, a Bambu printer's AMS and HMS, temperature
// chart, console, job history, connection.
import { useState } from 'preact/hooks';
import { html } from '../lib/html.js';
import { api } from '../lib/api.js';
import { useLive, useResource } from '../lib/hooks.js';
import type { Route } from '../lib/router.js';
import { href } from '../lib/router.js';
import { useSession } from '../lib/session.js';
import { tempWithTarget } from '../lib/format.js';
import { Button, ErrorNote, Notice, StatusBadge } from '../components/ui.js';
import { KindBadge, problemWords } from '../components/printer-kind.js';
import { StartRefused } from '../components/start-refusal.js';
import { applyTelemetry, statusKey, statusMoved, type Printer, type Telemetry } from './printer-types.js';
import type { Job } from './queue-types.js';
import { PrinterControls } from './printer-controls.js';
import { CurrentJob } from './printer-job.js';
import { TemperatureChart } from './printer-chart.js';
import { PrinterConsole } from './printer-console.js';
import { PrinterJobs } from './printer-jobs.js';
import { PrinterConnection } from './printer-connection.js';
import { BambuSection } from './printer-bambu.js';
import { PrinterCameras } from './printer-cameras.js';
import { useCoalesced } from './printer-hooks.js';
import type { PageDef } from './index.js';
import '../styles/printer.css';
import { now } from '../lib/clock.js';

export function PrinterPage({ route }: { route: Route }) {
  const id = route.parts[1] ?? '';
  if (!id) {
    return html`<div class="page printer-page"><h1>Printer</h1>
      <p>No printer named in the address. Pick one on the <a href=${href()}>farm</a>.</p></div>`;
  }
  return html`<${PrinterView} key=${id} id=${id} />`;
}

function PrinterView({ id }: { id: string }) {
  const { can } = useSession();
  const canWrite = can('printers:write');
  const printer = useResource(() => api.get<Printer>(`/v1/printers/${encodeURIComponent(id)}`), [id]);
  const jobId = printer.data?.current_job ?? null;
  const [jobReadAt, setJobReadAt] = useState(now());
  const job = useResource(async () => {
    if (!jobId) return undefined;
    const j = await api.get<Job>(`/v1/jobs/${encodeURIComponent(jobId)}`);
    setJobReadAt(now());
    return j;
  }, [jobId]);

  const refresh = useCoalesced(() => void printer.reload(), 400);
  // Telemetry: temperatures, status and progress in place, without a request; a status change reads the record again.
  useLive(['printer.telemetry'], (e) => {
    const t = e.data.object as Telemetry;
    if (t.printer_id !== id) return;
    if (printer.data && statusMoved(printer.data, t)) refresh();
    printer.set((p) => (p ? applyTelemetry(p, t) : p!));
  });
  // The job's own answer in a job.progress event (elapsed, remaining).
  useLive(['job.progress', 'job.paused', 'job.resumed'], (e) => {
    const j = e.data.object as Job;
    if (j.id !== jobId) return;
    job.set(j);
    setJobReadAt(now());
  });
  // A state change of this printer or one of its jobs, or a job's progress step (every 10 % or minute): read the record
  // again for what telemetry does not carry (ready flag, error, serial counters).
  useLive(['printer.*', 'job.*'], (e) => {
    if (e.type === 'printer.telemetry') return;
    const o = e.data.object as { id?: string; printer_id?: string };
    if ((e.type.startsWith('printer.') && o.id === id) || (e.type.startsWith('job.') && o.printer_id === id)) refresh();
  });

  const p = printer.data;
  if (!p) {
    return html`<div class="page printer-page" aria-busy=${printer.error ? undefined : 'true'}>
      <h1>Printer</h1>
      ${printer.error ? html`<${ErrorNote} error=${printer.error} /><${Button} onClick=${printer.reload}>Try again<//>` : html`<p>Loading the printer…</p>`}
      <p><a href=${href()}>Back to the farm</a></p>
    </div>`;
  }
  const t = p.temperatures;
  return html`<div class="page printer-page">
    <nav class="crumbs" aria-label="Breadcrumb"><a href=${href()}>Farm</a> <span aria-hidden="true">›</span> <span>${p.name}</span></nav>
    <div class="page-header printer-head">
      <h1>${p.name}</h1>
      <${StatusBadge} status=${statusKey(p)} />
      <${KindBadge} kind=${p.kind} />
      ${!p.ready && p.status !== 'printing' && p.status !== 'paused' ? html`<span class="badge status-warning">Bed not cleared</span>` : null}
      ${canWrite ? html`<a class="btn secondary printer-settings-link" href=${href('printer-settings', p.id)}>Printer settings</a>` : null}
    </div>
    <p class="printer-sub">
      ${p.model ?? 'Unknown model'} · ${p.firmware ?? 'firmware not reported yet'}
      ${p.group ? html`${' · group '}<strong>${p.group}</strong>` : null}
      ${' · '}hotend ${tempWithTarget(t.hotend, t.hotend_target)} · bed ${tempWithTarget(t.bed, t.bed_target)}
    </p>
    ${p.error ? html`<${Notice} kind="warning"><span><strong>${p.status === 'error' ? 'The printer is in error' : 'Last connection problem'}:</strong> ${problemWords(p) ?? p.error.message}${problemWords(p) && problemWords(p) !== p.error.message && p.offline_reason !== 'firmware_error' ? html` <small class="hint">(${p.error.message})</small>` : null}${p.status === 'error' ? ' Check the printer, then press Connect to reconnect it.' : ''}</span><//>` : null}
    <${StartRefused} printer=${p} canAct=${canWrite} onChanged=${(next: Printer) => printer.set(next)} />
    ${!p.ready && p.status === 'idle' ? html`<${Notice} kind="info"><span>The last print is still on the bed. Remove it, then press <strong>Bed cleared</strong> so the printer can take the next job.</span><//>` : null}
    <div class="printer-grid">
      <${CurrentJob} job=${jobId ? job.data : undefined} readAt=${jobReadAt} progress=${p.progress} error=${job.error} hasJob=${jobId !== null}
        external=${p.external_job} printerName=${p.name} />
      <${PrinterCameras} printerId=${id} printerName=${p.name} canWrite=${canWrite} />
      <${PrinterControls} printer=${p} canWrite=${canWrite} onChanged=${(next: Printer) => (printer.set(next), void job.reload())} />
      ${p.bambu ? html`<${BambuSection} printer=${p} b=${p.bambu} canWrite=${canWrite} onChanged=${(next: Printer) => printer.set(next)} />` : null}
      <${TemperatureChart} printerId=${id} />
      <${PrinterConsole} printer=${p} canWrite=${canWrite} />
      <${PrinterJobs} printerId=${id} />
      <${PrinterConnection} printer=${p} />
    </div>
  </div>`;
}

export const printerPage: PageDef = { path: 'printers', title: 'Printer', nav: false, scope: 'printers:read', component: PrinterPage };
