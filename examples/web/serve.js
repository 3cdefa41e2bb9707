// SPDX-License-Identifier: MIT
// Serves the built page (make web-serve; the web test uses it too) on
// 127.0.0.1 with node's own modules: the files of one folder, nothing
// else, never cached, and cross-origin isolated (the two policies below),
// so that the page's performance.now() counts in microseconds where a
// browser otherwise rounds it to 100 us, coarser than a flock2d step.
//
//   node examples/web/serve.js SITE [PORT]    (PORT 8000; 0: any free one)
'use strict';

const fs = require('fs');
const http = require('http');
const path = require('path');

const TYPES = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript',
  '.wasm': 'application/wasm', '.png': 'image/png',
};

// Resolves to the listening server once it listens on 127.0.0.1:port.
function serve(site, port) {
  const root = path.resolve(site);
  const server = http.createServer((request, response) => {
    const url = new URL(request.url, 'http://127.0.0.1');
    const name = url.pathname === '/' ? '/index.html' : url.pathname;
    const file = path.join(root, path.normalize(name));
    if (!file.startsWith(root + path.sep) || !fs.existsSync(file) ||
        !fs.statSync(file).isFile()) {
      response.writeHead(404);
      response.end('not found');
      return;
    }
    response.writeHead(200, {
      'Content-Type': TYPES[path.extname(file)] || 'application/octet-stream',
      'Cache-Control': 'no-store',
      'Cross-Origin-Opener-Policy': 'same-origin',
      'Cross-Origin-Embedder-Policy': 'require-corp',
    });
    fs.createReadStream(file).pipe(response);
  });
  return new Promise((resolve, reject) => {
    server.on('error', reject);
    server.listen(port, '127.0.0.1', () => resolve(server));
  });
}

module.exports = { serve };

if (require.main === module) {
  const site = process.argv[2];
  const port = Number(process.argv[3] || 8000);
  if (!site || !fs.existsSync(path.join(site, 'index.html'))) {
    console.error('serve: no index.html in ' + site + ' (make web)');
    process.exit(1);
  }
  serve(site, port).then((server) => {
    console.log('serve: http://127.0.0.1:' + server.address().port +
                '/ (Ctrl-C stops it)');
  }, (error) => {
    console.error('serve: ' + error.message);
    process.exit(1);
  });
}
