/** Peak resident set size of this process, sampled every `intervalMs` until stopped. */
export function sampleRss(intervalMs = 100): { peak(): number; stop(): number } {
  let peak = process.memoryUsage.rss();
  const timer = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage.rss());
  }, intervalMs);
  timer.unref();
  return {
    peak: () => Math.max(peak, process.memoryUsage.rss()),
    stop: () => {
      clearInterval(timer);
      return Math.max(peak, process.memoryUsage.rss());
    },
  };
}
