'use strict';
// The image's HEALTHCHECK: exits 0 when the process in this container answers 200 on GET /health, 1 otherwise.
// Every Strata process serves /health on PORT (8080 unless the container sets another): 503 while it starts and while
// it stops, 200 in between. Node's own HTTP client, since the runtime image carries neither curl nor wget.
const { request } = require('node:http');

const port = Number(process.env.PORT || 8080);
const check = request({ host: '127.0.0.1', port, path: '/health', timeout: 4000 }, (response) => {
  response.resume();
  process.exitCode = response.statusCode === 200 ? 0 : 1;
});
check.on('timeout', () => check.destroy(new Error('no answer within 4 s')));
check.on('error', (error) => {
  console.error(`GET /health on port ${port}: ${error.message}`);
  process.exitCode = 1;
});
check.end();
