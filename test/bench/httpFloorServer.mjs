// The floor of a broker written in Node: an HTTP server on a Unix socket that reads the request
// and answers one fixed ExecCredential, with nothing else loaded. `node httpFloorServer.mjs <socket>`;
// prints "ready" when it listens.
import http from 'node:http';

const ANSWER = JSON.stringify({
  apiVersion: 'client.authentication.k8s.io/v1',
  kind: 'ExecCredential',
  status: { token: 'floor-token' },
});

const server = http.createServer((request, response) => {
  request.resume();
  request.once('end', () => {
    response.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(ANSWER) });
    response.end(ANSWER);
  });
});
server.listen(process.argv[2], () => process.stdout.write('ready\n'));
process.once('SIGTERM', () => server.close(() => process.exit(0)));
