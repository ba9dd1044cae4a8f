/** Connection state of every input and output, for `/ready` and the connection metrics. */
export interface ComponentStatus {
  path: string;
  kind: 'input' | 'output';
  type: string;
  connected: boolean;
  reason?: string;
  /** Why the component, though connected, is stuck (its input's `stalled()`); undefined when it is not. */
  stalled?: () => string | undefined;
}

export class StatusBoard {
  private readonly entries = new Map<string, ComponentStatus>();
  /** While set, the stream is not ready whatever its components say (it is still being built). */
  private holding: ComponentStatus | undefined;

  /** Not ready until `release()`: the server answers before the stream's components exist. */
  hold(reason: string): void {
    this.holding = { path: 'root', kind: 'input', type: 'stream', connected: false, reason };
  }

  release(): void {
    this.holding = undefined;
  }

  track(path: string, kind: 'input' | 'output', type: string): ComponentStatus {
    const s: ComponentStatus = { path, kind, type, connected: false, reason: 'not connected yet' };
    this.entries.set(path, s);
    return s;
  }

  /** The components that are not connected or are stuck, with why; empty when ready. */
  notReady(): ComponentStatus[] {
    const out: ComponentStatus[] = [];
    for (const s of this.entries.values()) {
      if (!s.connected) {
        out.push(s);
        continue;
      }
      const stuck = s.stalled?.();
      if (stuck !== undefined) out.push({ ...s, reason: stuck });
    }
    return this.holding ? [this.holding, ...out] : out;
  }

  all(): ComponentStatus[] {
    return [...this.entries.values()];
  }
}
