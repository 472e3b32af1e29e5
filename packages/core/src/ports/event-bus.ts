/** A function that stops a subscription. */
export type Unsubscribe = () => void;

/** Topic-based publish/subscribe for document and run events. Delivery is best-effort, in order per topic. */
export interface EventBus {
  /** Deliver an event to every current subscriber of the topic. */
  publish(topic: string, event: unknown): Promise<void>;
  /** Receive events published to the topic from now on. */
  subscribe(topic: string, handler: (event: unknown) => void): Unsubscribe;
  /**
   * Resolves once every subscription made so far receives what any node publishes (a Redis SUBSCRIBE acknowledged).
   * Absent: subscriptions are live as soon as `subscribe` returns (in-process).
   */
  settled?(): Promise<void>;
  /** Drop all subscriptions and release resources. */
  close(): Promise<void>;
}

/** Version of the EventBus contract that `eventBusSuite` checks (major: every adapter must change; minor: more checks). */
export const EVENT_BUS_SPEC_VERSION = '1.0.0';
