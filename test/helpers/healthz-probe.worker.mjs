// Asks /healthz every `everyMs` from its own thread, so a frozen service thread shows as late answers even when the
// service runs inside the test's own process. Posts the latencies when told to stop.
import http from 'node:http';
import { parentPort, workerData } from 'node:worker_threads';
import { performance } from 'node:perf_hooks';

const { url, localAddress, everyMs, minSamples } = workerData;
const latencies = [];
const pending = new Set();
let stopping = false;
let asked = 0;

function ask() {
  asked++;
  const started = performance.now();
  const done = new Promise((resolve) => {
    const req = http.get(url, { localAddress, agent: false }, (res) => {
      res.resume();
      res.on('end', () => {
        latencies.push(res.statusCode === 200 ? performance.now() - started : Infinity);
        resolve();
      });
    });
    req.on('error', () => {
      latencies.push(Infinity);
      resolve();
    });
  });
  pending.add(done);
  done.then(() => pending.delete(done));
}

const timer = setInterval(ask, everyMs);
ask();
parentPort.on('message', async () => {
  if (stopping) return;
  stopping = true;
  while (asked < minSamples) await new Promise((resolve) => setTimeout(resolve, everyMs));
  clearInterval(timer);
  ask();
  await Promise.all(pending);
  parentPort.postMessage(latencies);
});
