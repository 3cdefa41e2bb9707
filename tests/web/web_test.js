// SPDX-License-Identifier: MIT
// The browser page's test (make web-test): serves the built page on
// 127.0.0.1, opens it in Debian's chromium, headless, through
// playwright-core, and checks
//
//   1. the page starts without an error, and its agents move between two
//      drawn frames (their positions, and the canvas's pixels);
//   2. for each scene the page offers, on each kernel path named in
//      WEB_TEST_PATHS, the state hash after WEB_TEST_STEPS steps in the
//      browser equals the hash throng-bench (the native build, run here
//      and now) reaches for the same scene, agent count and seed: the
//      same bits in a browser as on the desktop;
//   3. a slider reaches the world: flock2d with another alignment weight
//      ends in another state, the same one twice;
//   4. what the page's C side refuses (an unknown scene, path or control,
//      a bad seed, a weight the library refuses) it refuses with the
//      status and a sentence, and its world stays as it was;
//
// then writes a screenshot of the page. Exits non-zero on the first
// failure, and after WEB_TEST_TIMEOUT seconds whatever happens.
//
// Environment: WEB_SITE (the built page, e.g. build/web/site), BENCH
// (the native throng-bench), WEB_TEST_PATHS ("wasm scalar"),
// WEB_TEST_STEPS (200), WEB_TEST_AGENTS (each scene's own count when
// unset), WEB_TEST_SCREENSHOT (a .png path), CHROMIUM (/usr/bin/chromium),
// WEB_TEST_TIMEOUT (seconds, 240). The step times printed are medians
// over the steps of one run, in the browser and in the native bench.
'use strict';

const { chromium } = require('playwright-core');
const { spawnSync } = require('child_process');
const fs = require('fs');
const path = require('path');
// The page's own server (make web-serve), on a port the system picks.
const { serve } = require('../../examples/web/serve.js');

const site = path.resolve(process.env.WEB_SITE || 'build/web/site');
const bench = process.env.BENCH || 'build/throng-bench';
const paths = (process.env.WEB_TEST_PATHS || 'wasm scalar').split(/\s+/)
  .filter(Boolean);
const steps = Number(process.env.WEB_TEST_STEPS || 200);
// 0: each scene's own agent count (web_scenes).
const agents = Number(process.env.WEB_TEST_AGENTS || 0);
const screenshot = process.env.WEB_TEST_SCREENSHOT || '';
const executable = process.env.CHROMIUM || '/usr/bin/chromium';
const timeout = Number(process.env.WEB_TEST_TIMEOUT || 240);
const seed = 1;

// Chromium on a machine without a network, a display or a GPU, perhaps as
// root: no sandbox (root), no GPU process, and none of the background
// connections (updates, sync, QUIC probes) it would otherwise try.
const chromiumArgs = [
  '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update',
  '--disable-sync', '--disable-default-apps', '--disable-extensions',
];

function log(text) {
  console.log('web-test: ' + text);
}

class Failure extends Error {}

function expect(ok, text) {
  if (!ok) throw new Failure(text);
}

const watchdog = setTimeout(() => {
  console.error('web-test: FAILED: no result after ' + timeout + ' s');
  process.exit(1);
}, timeout * 1000);

// One throng-bench run over the scenes, one thread, the same seed and
// steps, on the path `simd` (the machine's widest when empty); the
// results by scene.
function nativeRuns(scenes, simd, repeats) {
  const list = scenes.map((s) => s.name + '@' + s.agents).join(',');
  const args = ['--scenario', list, '--seed', String(seed), '--threads', '1',
                '--warmup', '0', '--steps', String(steps), '--repeats',
                String(repeats || 1), '--json', '-'];
  const env = Object.assign({}, process.env);
  delete env.THRONG_SIMD;
  if (simd) env.THRONG_SIMD = simd;
  const run = spawnSync(bench, args, { env: env, encoding: 'utf8',
                                       timeout: 600000 });
  expect(run.status === 0, bench + ' ' + args.join(' ') + ' failed (' +
         (run.error || run.status) + '): ' + run.stderr);
  const out = new Map();
  for (const b of JSON.parse(run.stdout).benchmarks) {
    out.set(b.scenario, b);
  }
  log('native: ' + (simd ? 'THRONG_SIMD=' + simd + ' ' : '') + bench + ' ' +
      args.join(' '));
  return out;
}

// The page open in headless chromium, for `body(page, browser)`; every
// error the page reports fails the run.
async function withPage(body) {
  expect(fs.existsSync(path.join(site, 'throng.wasm')),
         site + '/throng.wasm is missing (make web)');
  const server = await serve(site, 0);
  const url = 'http://127.0.0.1:' + server.address().port + '/';
  const browser = await chromium.launch({
    executablePath: executable, headless: true, args: chromiumArgs,
  });
  const problems = [];
  try {
    const page = await browser.newPage({ viewport: { width: 1120,
                                                     height: 760 } });
    page.on('pageerror', (e) => problems.push('page error: ' + e.message));
    page.on('console', (m) => {
      if (m.type() === 'error') problems.push('console: ' + m.text());
    });
    await page.goto(url);
    await page.waitForSelector('body[data-ready]', { timeout: 60000 });
    const ready = await page.getAttribute('body', 'data-ready');
    expect(ready === 'yes', 'the page did not start: ' +
           await page.textContent('#error'));
    const isolated = await page.evaluate(() => window.crossOriginIsolated);
    log('page up at ' + url + ' (chromium ' + await browser.version() +
        (isolated ? ', cross-origin isolated' : '') + ')');
    await body(page);
    expect(problems.length === 0, problems.join('\n'));
  } finally {
    await browser.close();
    server.close();
  }
}

// The scenes the page offers, at WEB_TEST_AGENTS agents when set.
async function pageScenes(page) {
  return (await page.evaluate(() => window.throngPage.scenes()))
    .map((s) => Object.assign({}, s, { agents: agents || s.agents }));
}

async function test(page) {
  // 1. Motion between two drawn frames.
  const motion = await page.evaluate(async () => {
    const canvas = document.getElementById('view');
    const pixels = () => canvas.getContext('2d')
      .getImageData(0, 0, canvas.width, canvas.height).data;
    await window.throngPage.frames(2);
    const p0 = window.throngPage.positions();
    const i0 = pixels();
    await window.throngPage.frames(2);
    const p1 = window.throngPage.positions();
    const i1 = pixels();
    let moved = 0;
    for (let i = 0; i < p0.length; i += 2) {
      if (p0[i] !== p1[i] || p0[i + 1] !== p1[i + 1]) moved++;
    }
    let changed = 0, inked = 0;
    for (let i = 0; i < i0.length; i += 4) {
      if (i0[i] !== i1[i] || i0[i + 1] !== i1[i + 1] ||
          i0[i + 2] !== i1[i + 2]) changed++;
      if (i1[i] !== 255 || i1[i + 1] !== 255 || i1[i + 2] !== 255) inked++;
    }
    return { agents: p0.length / 2, moved: moved, changed: changed,
             inked: inked, state: window.throngPage.state() };
  });
  log('motion: ' + motion.moved + ' of ' + motion.agents + ' agents of ' +
      motion.state.scene + ' moved between two frames, ' + motion.changed +
      ' pixels changed (' + motion.inked + ' drawn)');
  expect(motion.agents > 0 && motion.moved >= motion.agents * 0.9,
         'fewer than 90% of the agents moved between two frames');
  expect(motion.changed > 0 && motion.inked > 0,
         'the canvas did not change between two frames');

  // 2. The same hash as the native build, on every path.
  const scenes = await pageScenes(page);
  expect(scenes.some((s) => s.name === 'flock2d') &&
         scenes.some((s) => s.name === 'crossing2d'),
         'the page lacks flock2d or crossing2d');
  const native = nativeRuns(scenes);
  for (const scene of scenes) {
    const want = native.get(scene.name);
    expect(want, 'the bench did not run ' + scene.name);
    for (const simd of paths) {
      const got = await page.evaluate(
        (a) => window.throngPage.run(a.name, a.agents, a.seed, a.steps,
                                     a.simd),
        { name: scene.name, agents: scene.agents, seed: seed, steps: steps,
          simd: simd });
      const line = scene.name + ' ' + scene.agents + ' agents, ' + steps +
        ' steps: browser ' + got.simd + ' ' + got.hash + ' (' +
        got.ms_per_step.toFixed(3) + ' ms/step), native ' + want.simd +
        ' ' + want.state_hash + ' (' +
        want.ms_per_step_median.toFixed(3) + ' ms/step)';
      expect(got.simd === simd, line + ': ran on ' + got.simd + ', not ' +
             simd);
      expect(got.agents === scene.agents,
             line + ': ran ' + got.agents + ' agents');
      expect(got.hash === want.state_hash, line + ': the hashes differ');
      log('same state: ' + line);
    }
  }

  // 3. A slider reaches the world.
  const controlled = await page.evaluate((a) => {
    const t = window.throngPage;
    const base = t.run('flock2d', a.agents, a.seed, a.steps, 'auto');
    const other = { alignment_weight: 1 };
    const one = t.run('flock2d', a.agents, a.seed, a.steps, 'auto', other);
    const two = t.run('flock2d', a.agents, a.seed, a.steps, 'auto', other);
    return { base: base.hash, one: one.hash, two: two.hash };
  }, { agents: 500, seed: seed, steps: 50 });
  log('alignment weight 6 -> 1: ' + controlled.base + ' -> ' +
      controlled.one + ', again ' + controlled.two);
  expect(controlled.one !== controlled.base,
         'changing flock2d\'s alignment weight did not change the run');
  expect(controlled.one === controlled.two,
         'the same weights gave two different runs');

  // 4. What the C side refuses, it refuses with a status and a sentence,
  // and the world it holds stays as it was.
  const refusals = await page.evaluate(() => {
    const t = window.throngPage;
    t.run('flock2d', 300, 1, 10, 'auto');
    const before = t.state().hash;
    const out = [];
    const ask = (what, fn, ...args) => {
      const r = t.call(fn, ...args);
      out.push({ what: what, status: r.result, error: r.error,
                 same: t.state().hash === before });
    };
    ask('a scene the page lacks', 'build', 'nosuch2d', 300, 1, 'auto');
    ask('a seed that is no whole number', 'build', 'flock2d', 300, 1.5,
        'auto');
    ask('a path no engine has', 'build', 'flock2d', 300, 1, 'avx3');
    ask('a path this module lacks', 'build', 'flock2d', 300, 1, 'neon');
    ask('a control the scene lacks', 'set', 'time_horizon', 2);
    ask('a weight the library refuses', 'set', 'alignment_weight', -1);
    return out;
  });
  const want = [7, 3, 3, 13, 7, 3]; // throng_status: NOT_FOUND,
  // OUT_OF_RANGE, OUT_OF_RANGE, UNSUPPORTED, NOT_FOUND, OUT_OF_RANGE
  refusals.forEach((r, k) => {
    log('refused ' + r.what + ': status ' + r.status + ', "' + r.error + '"');
    expect(r.status === want[k], r.what + ': status ' + r.status + ', not ' +
           want[k]);
    expect(r.error.length > 0, r.what + ': no sentence');
    expect(r.same, r.what + ': the world changed');
  });

  if (screenshot) {
    await page.evaluate((a) => {
      window.throngPage.run('crossing2d', a.agents, a.seed, a.steps, 'auto');
    }, { agents: 2000, seed: seed, steps: 450 });
    await page.screenshot({ path: screenshot });
    log('screenshot ' + screenshot);
  }
}

// WEB_BENCH=R: no checks, but step times, each scene on each path in the
// browser (a run first to let the engine compile, then R runs: the
// median of their steps) and natively (on the paths WEB_BENCH_NATIVE
// names, "auto scalar" by default; R repeats: the bench's median), with
// the hash of each.
async function timing(page) {
  const repeats = Number(process.env.WEB_BENCH);
  const scenes = await pageScenes(page);
  const rows = [];
  const native = (process.env.WEB_BENCH_NATIVE || 'auto scalar').split(/\s+/)
    .filter(Boolean);
  for (const simd of native) {
    for (const [name, b] of nativeRuns(scenes, simd === 'auto' ? '' : simd,
                                       repeats)) {
      rows.push([name, b.agents, 'native ' + b.simd, b.ms_per_step_median,
                 b.state_hash]);
    }
  }
  for (const scene of scenes) {
    for (const simd of paths) {
      const got = await page.evaluate((a) => {
        const t = window.throngPage;
        t.run(a.name, a.agents, a.seed, a.steps, a.simd);
        const ms = [];
        let last = null;
        for (let r = 0; r < a.repeats; r++) {
          last = t.run(a.name, a.agents, a.seed, a.steps, a.simd);
          ms.push(last.ms_per_step);
        }
        ms.sort((x, y) => x - y);
        return { ms: ms[Math.floor(ms.length / 2)], hash: last.hash,
                 simd: last.simd };
      }, { name: scene.name, agents: scene.agents, seed: seed, steps: steps,
           simd: simd, repeats: repeats });
      rows.push([scene.name, scene.agents, 'browser ' + got.simd, got.ms,
                 got.hash]);
    }
  }
  rows.sort((a, b) => (a[0] + a[1]).localeCompare(b[0] + b[1]));
  log('ms per step, 1 thread, ' + steps + ' steps (median):');
  for (const r of rows) {
    console.log(r[0].padEnd(12) + String(r[1]).padStart(7) + '  ' +
                r[2].padEnd(16) + r[3].toFixed(3).padStart(9) + '  ' + r[4]);
  }
}

withPage(process.env.WEB_BENCH ? timing : test).then(() => {
  clearTimeout(watchdog);
  log(process.env.WEB_BENCH ? 'done' : 'passed');
}, (error) => {
  clearTimeout(watchdog);
  console.error('web-test: FAILED: ' +
                (error instanceof Failure ? error.message : error.stack));
  process.exit(1);
});
