/** A task let into the pool, to hand back when it ends. */
export type GateTicket = symbol;

/**
 * Lets tasks into a worker pool: up to `threads` at once, and beyond that, up to `maxThreads`, only while a running
 * task has taken longer than `spareAfterMs`. A slow task (the OCR of a scanned report) gets a spare thread for the
 * tasks behind it, but a stream of quick ones stays on the kept threads: a pool left to itself starts its spare thread
 * whenever a queue forms, which in a bulk upload of small files is always, and each spare conversion thread costs
 * 50-65 MiB of resident memory for no measurable speed on two cores (issue 11). Tasks enter in the order they asked.
 */
export class TaskGate {
  private readonly started = new Map<GateTicket, number>();
  private readonly waiting: Array<(ticket: GateTicket) => void> = [];
  private timer: NodeJS.Timeout | undefined;
  /**
   * No thread of the pool is up (see `chill`): a running task waits for one to start (loading its libraries takes a
   * second or more on a busy machine), which is not a slow task, so it earns no spare thread. Measured on SciFact before
   * this rule: the first document of every ingest started the spare thread, 50-60 MiB of resident memory for 30 s
   * (issue 41).
   */
  private cold = false;

  constructor(
    private readonly threads: number,
    private readonly maxThreads: number,
    private readonly spareAfterMs: number,
  ) {}

  /** Resolves once the task may run; pass the ticket to `leave` when it ends, however it ends. */
  enter(): Promise<GateTicket> {
    if (this.waiting.length === 0 && this.mayStart()) return Promise.resolve(this.start());
    return new Promise((resolve) => {
      this.waiting.push(resolve);
      this.watch();
    });
  }

  leave(ticket: GateTicket): void {
    this.started.delete(ticket);
    this.admit();
  }

  /** The pool has a thread up: running tasks are timed from now on. */
  warm(): void {
    if (!this.cold) return;
    this.cold = false;
    const now = performance.now();
    for (const ticket of this.started.keys()) this.started.set(ticket, now);
    this.admit();
  }

  /** The pool's last thread has stopped (idle): the next task waits for a thread to start again. */
  chill(): void {
    this.cold = true;
  }

  private start(): GateTicket {
    const ticket: GateTicket = Symbol('task');
    this.started.set(ticket, performance.now());
    return ticket;
  }

  /** Kept threads first; a spare thread for each running task past `spareAfterMs`. */
  private mayStart(): boolean {
    const running = this.started.size;
    if (running < this.threads) return true;
    if (running >= this.maxThreads || this.cold) return false;
    const now = performance.now();
    const slow = [...this.started.values()].filter((since) => now - since >= this.spareAfterMs).length;
    return slow > running - this.threads;
  }

  private admit(): void {
    while (this.waiting.length > 0 && this.mayStart()) this.waiting.shift()!(this.start());
    this.watch();
  }

  /** While tasks wait, look again when the next running task turns slow. */
  private watch(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.waiting.length === 0 || this.started.size >= this.maxThreads || this.cold) return;
    const now = performance.now();
    const pending = [...this.started.values()].map((since) => since + this.spareAfterMs - now).filter((ms) => ms > 0);
    if (pending.length === 0) return;
    this.timer = setTimeout(() => this.admit(), Math.ceil(Math.min(...pending)));
    this.timer.unref();
  }
}
