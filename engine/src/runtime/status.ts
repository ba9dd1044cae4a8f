/** Connection state of every input and output, for `/ready` and the connection metrics. */
export interface ComponentStatus {
  path: string;
  kind: 'input' | 'output';
  type: string;
  connected: boolean;
  reason?: string;
}

export class StatusBoard {
  private readonly entries = new Map<string, ComponentStatus>();

  track(path: string, kind: 'input' | 'output', type: string): ComponentStatus {
    const s: ComponentStatus = { path, kind, type, connected: false, reason: 'not connected yet' };
    this.entries.set(path, s);
    return s;
  }

  /** The components that are not connected, with why; empty when ready. */
  notReady(): ComponentStatus[] {
    return [...this.entries.values()].filter((s) => !s.connected);
  }

  all(): ComponentStatus[] {
    return [...this.entries.values()];
  }
}
