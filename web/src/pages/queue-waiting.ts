// Why a queued job waits, for a farm owner: each waiting_reason code of the scheduler (src/scheduler/waiting-reasons.ts)
// as a short label, what it means, and what to do about it. Kept free of imports so a test can check every code is here.

export interface WaitingWords {
  /** A few words for the badge. */
  label: string;
  /** What holds the job back. */
  why: string;
  /** What the owner can do (or that nothing is needed). */
  todo: string;
}

export const WAITING_WORDS: Record<string, WaitingWords> = {
  pinned_printer_unknown: {
    label: 'Its printer was removed',
    why: 'This job is pinned to a printer that no longer exists in the farm.',
    todo: 'Cancel it and upload it again for another printer, or without a target printer.',
  },
  no_printer_for_format: {
    label: 'No printer reads its file',
    why: 'Binary G-code (.bgcode) prints only on PrusaLink printers and a sliced 3MF (.gcode.3mf) only on Bambu printers; none of those may take this job.',
    todo: 'Add a printer of that kind, or slice the model again to plain G-code.',
  },
  printer_model_mismatch: {
    label: 'No printer of its model',
    why: 'The sliced 3MF was made for one Bambu printer model, and no Bambu printer it may use is that model.',
    todo: "Add a Bambu printer of that model, set the right model in a Bambu printer's settings, or slice again for the printer you have.",
  },
  no_printer_in_group: {
    label: 'No printer in its group',
    why: 'The job may only print in a group that has no printers.',
    todo: 'Add a printer to that group (printer settings), or upload the job again for another group.',
  },
  no_printer_with_material: {
    label: 'Material not loaded',
    why: 'No printer it may use has the material it asks for loaded (the type, and the colour if one was given).',
    todo: 'Load a spool of that material on a printer (Materials page); the job starts by itself after.',
  },
  nozzle_mismatch: {
    label: 'Wrong nozzle size',
    why: 'The printers with the right material have a different nozzle than the file was sliced for.',
    todo: 'Fit the right nozzle on a printer and update its nozzle size, or slice the model again for the nozzle you have.',
  },
  insufficient_material: {
    label: 'Not enough filament',
    why: 'Every spool that fits has less filament left than this print needs (its estimate plus 5 %).',
    todo: 'Load a fuller spool, or weigh the loaded one if it holds more than recorded.',
  },
  pinned_printer_offline: {
    label: 'Its printer is offline',
    why: 'The printer this job is pinned to is offline, still connecting, or in error.',
    todo: 'Check its power and USB cable, then press Connect on the printer page.',
  },
  no_printer_online: {
    label: 'No printer online',
    why: 'No printer that could print this job is online: they are offline, connecting or in error (or none is set up).',
    todo: 'Switch on and connect a fitting printer; the job starts by itself once one is ready.',
  },
  printer_refused: {
    label: 'A printer refused to start it',
    why: 'The printer that could take it refused to start jobs several times in a row, so no more are sent to it.',
    todo: 'Fix what the printer says (free its storage, check its software), then press Retry on that printer; editing or reconnecting it retries too.',
  },
  pinned_printer_busy: {
    label: 'Its printer is busy',
    why: 'The printer this job is pinned to is printing something else or about to start a more urgent job.',
    todo: 'Nothing to do: it starts when that printer is free. Raise its priority to go first.',
  },
  printers_busy: {
    label: 'Printers busy',
    why: 'Every printer that fits is printing or about to start a more urgent job.',
    todo: 'Nothing to do: it starts when one is free. Raise its priority to go earlier.',
  },
  printers_not_ready: {
    label: 'Bed not cleared',
    why: 'A fitting printer is free, but its bed still holds the last print.',
    todo: 'Remove the finished part and press "Bed cleared" on that printer.',
  },
  bed_clearing: {
    label: 'Clearing the bed',
    why: 'A fitting printer pushes its last part off by itself once the bed has cooled down.',
    todo: 'Nothing to do: the job starts right after.',
  },
  power_budget: {
    label: 'Waiting for power',
    why: "Heating up now would draw more than the farm's power budget allows.",
    todo: 'Nothing to do: it starts when another printer has finished heating. Raise the budget in Settings if it is too low.',
  },
  // Written by the nodes (not the scheduler) when the appliance driving the pinned printer stopped sending heartbeats.
  node_lost: {
    label: 'Appliance lost',
    why: 'The job is pinned to a printer whose appliance (node) stopped answering.',
    todo: 'Check that appliance: power, network, the printfarm service. The job waits until it is back, or pin it elsewhere.',
  },
};

/** Words for any code; an unknown (newer) code is still shown, in a neutral sentence. */
export function waitingWords(code: string): WaitingWords {
  return (
    WAITING_WORDS[code] ?? {
      label: code.replace(/_/g, ' '),
      why: `The scheduler holds this job back (${code.replace(/_/g, ' ')}).`,
      todo: 'Reload the page later; if it keeps waiting, check the printers that could take it.',
    }
  );
}
