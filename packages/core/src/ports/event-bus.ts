/** A function that stops a subscription. */
export type Unsubscribe = () => void;

/** Topic-based publish/subscribe for document and run events. Delivery is best-effort, in order per topic. */
export interface EventBus {
  /** Deliver an event to every current subscriber of the topic. */
  publish(topic: string, event: unknown): Promise<void>;
  /** Receive events published to the topic from now on. */
  subscribe(topic: string, handler: (event: unknown) => void): Unsubscribe;
  /** Drop all subscriptions and release resources. */
  close(): Promise<void>;
}
