/* Small helpers the page's modules share (no DOM; Node imports them too). */

/* The first index of the largest finite value, or -1 (torch.argmax and Python's max agree on the first). */
export function argmax(values) {
  let best = -1;
  for (let i = 0; i < values.length; i++) {
    if (Number.isFinite(values[i]) && (best < 0 || values[i] > values[best])) best = i;
  }
  return best;
}

/* A promise resolved in a new task, after the input events and drawing waiting meanwhile (by a message, which
 * unlike a nested setTimeout is not clamped to 4 ms). */
export function nextTask() {
  return /** @type {Promise<void>} */ (new Promise((resolve) => {
    if (typeof MessageChannel === "undefined") { setTimeout(resolve, 0); return; }
    const channel = new MessageChannel();
    channel.port1.onmessage = () => { channel.port1.close(); resolve(); };
    channel.port2.postMessage(null);
  }));
}
