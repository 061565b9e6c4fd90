// A chart's HTML legend: one button per series that hides or shows it. Grouped (issue 54), a group's entry has a
// disclosure button before it that draws the group's runs thin behind its mean, listed after it as entries of their
// own. Labels reach the page through textContent only.

export interface LegendEntry {
  key: string;
  label: string;
  colour: string;
  dash: number[];
  hidden: boolean;
  /** A group's mean (of `runs` runs): its runs one click away. */
  group?: { id: string; expanded: boolean; runs: number; word: string };
  /** A run of an expanded group. */
  member?: boolean;
}

export interface LegendCallbacks {
  toggle(key: string): void;
  /** A group's runs drawn behind its mean, or no longer. */
  expand(groupId: string): void;
}

export function sameLegend(a: readonly LegendEntry[], b: readonly LegendEntry[]): boolean {
  return a.length === b.length && a.every((entry, i) => JSON.stringify(entry) === JSON.stringify(b[i]));
}

function disclosure(group: NonNullable<LegendEntry['group']>, callbacks: LegendCallbacks): HTMLButtonElement {
  const button = document.createElement('button');
  button.className = 'legend-expand';
  button.dataset.group = group.id;
  button.setAttribute('aria-expanded', String(group.expanded));
  button.textContent = `${group.expanded ? '▾' : '▸'} ${group.runs} ${group.word}`;
  button.title = group.expanded ? `Hide the group's ${group.word}` : `Show the group's ${group.runs} ${group.word}, thin behind the mean`;
  button.addEventListener('click', () => callbacks.expand(group.id));
  return button;
}

function item(entry: LegendEntry, callbacks: LegendCallbacks): HTMLButtonElement {
  const button = document.createElement('button');
  button.className = entry.member ? 'legend-item member' : 'legend-item';
  button.dataset.series = entry.key;
  button.setAttribute('aria-pressed', String(!entry.hidden));
  button.title = entry.hidden ? 'Show this series' : 'Hide this series';
  const swatch = document.createElement('span');
  swatch.className = 'swatch';
  swatch.style.borderTopColor = entry.colour;
  swatch.style.borderTopStyle = entry.dash.length > 0 ? 'dashed' : 'solid';
  const label = document.createElement('span');
  label.textContent = entry.label;
  button.append(swatch, label);
  button.addEventListener('click', () => callbacks.toggle(entry.key));
  return button;
}

export function drawLegend(legend: HTMLElement, entries: readonly LegendEntry[], callbacks: LegendCallbacks): void {
  legend.replaceChildren(
    ...entries.map((entry) => {
      if (!entry.group) return item(entry, callbacks);
      const pair = document.createElement('span'); // the disclosure and its entry wrap together
      pair.className = 'legend-group';
      pair.append(disclosure(entry.group, callbacks), item(entry, callbacks));
      return pair;
    }),
  );
}
