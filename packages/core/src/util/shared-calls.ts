/** How a SharedCalls serves its requests. */
export interface SharedCallsSpec<Request> {
  /** Calls in flight at once; more requests wait for one to end. */
  calls: number;
  /** What one call carries at most, in `sizeOf` units (a request larger than this still goes, alone). */
  capacity: number;
  sizeOf: (request: Request) => number;
  /** Makes one call for the requests and settles each of them; never rejects. */
  send: (requests: Request[]) => Promise<void>;
}

/**
 * Requests of many callers served by shared calls, where each call has a fixed cost that one request a call pays
 * over and over (a message to a thread and back, a model invocation): requests that arrive while `calls` are in
 * flight wait, and the next call takes the first waiting request and those after it that fit in `capacity`. Used by
 * the embedder's calls (EmbedBatcher) and the conversion pool's tasks (the adapters' ConversionBatcher), which each
 * say how a call is made and what happens when a shared one fails.
 */
export class SharedCalls<Request> {
  private readonly waiting: Request[] = [];
  private inFlight = 0;

  constructor(private readonly spec: SharedCallsSpec<Request>) {}

  add(request: Request): void {
    this.waiting.push(request);
    this.next();
  }

  private next(): void {
    while (this.inFlight < this.spec.calls && this.waiting.length > 0) {
      const requests = this.take();
      this.inFlight++;
      void this.spec.send(requests).finally(() => {
        this.inFlight--;
        this.next();
      });
    }
  }

  /** The first waiting request, and those after it that fit in the same call. */
  private take(): Request[] {
    const requests = [this.waiting.shift()!];
    let size = this.spec.sizeOf(requests[0]!);
    while (this.waiting.length > 0 && size + this.spec.sizeOf(this.waiting[0]!) <= this.spec.capacity) {
      size += this.spec.sizeOf(this.waiting[0]!);
      requests.push(this.waiting.shift()!);
    }
    return requests;
  }
}
