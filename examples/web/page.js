// SPDX-License-Identifier: MIT
// The page: a scene of the scenario table built and stepped in the
// WebAssembly module (throng_web.c), drawn on a canvas every frame, with
// the scene's weights as sliders and the step time measured here.
//
// window.throngPage is what the web test (tests/web/web_test.js) drives:
// the agents' positions, a wait for drawn frames, and a run of N steps
// whose state hash it compares with the native build's.
'use strict';

(function () {
  // The renderer's colours (tools/render_frame.c) for what is not an
  // agent; agents take theirs from the module (render_group_colour).
  const COLOURS = {
    background: '#ffffff', box: '#9aa3ad', corridor: '#eaf0f6',
    path: '#a8b8c8', obstacleFill: '#d5d9de', obstacleEdge: '#6b737c',
    wall: '#39414a',
  };
  // Step times are the median of this many frames.
  const WINDOW = 60;

  const $ = (id) => document.getElementById(id);
  const canvas = $('view');
  // Frames are written as pixels (putImageData), which a canvas kept in
  // memory takes without a copy back from the GPU.
  const ctx = canvas.getContext('2d', { willReadFrequently: true });

  let api = null;
  let module = null;
  let scenes = [];
  let scene = null;       // the scene row (web_scenes) being shown
  let state = null;       // web_state after the last build
  let running = true;
  let stepTimes = [];
  let drawTimes = [];
  let frames = 0;         // frames drawn since the page opened
  let frameWaiters = [];  // resolved after the next drawn frame
  let lastStats = 0;

  function showError(text) {
    $('error').textContent = text || '';
  }

  function check(status, what) {
    if (status !== 0) {
      const text = what + ': ' + api.error();
      showError(text);
      throw new Error(text);
    }
  }

  function median(values) {
    if (values.length === 0) return NaN;
    const sorted = values.slice().sort((a, b) => a - b);
    return sorted[Math.floor(sorted.length / 2)];
  }

  // The columns in the module's memory, read afresh: a step may move
  // them, and memory growth replaces the typed arrays.
  function columns() {
    const at = api.columns();
    if (!at) return null;
    const words = module.HEAPU32.subarray(at >> 2, (at >> 2) + 6);
    const count = words[0];
    const f32 = (address) => module.HEAPF32.subarray(address >> 2,
                                                    (address >> 2) + count);
    return {
      count: count, px: f32(words[1]), py: f32(words[2]), fx: f32(words[3]),
      fy: f32(words[4]),
      group: module.HEAPU32.subarray(words[5] >> 2, (words[5] >> 2) + count),
    };
  }

  // World metres to canvas pixels: the view fitted at the build, y up.
  function mapping() {
    const w = canvas.width, h = canvas.height;
    const ex = state.view_max[0] - state.view_min[0];
    const ey = state.view_max[1] - state.view_min[1];
    const scale = Math.min(w / ex, h / ey);
    const ox = (w - scale * ex) / 2, oy = (h - scale * ey) / 2;
    return {
      scale: scale,
      x: (x) => ox + (x - state.view_min[0]) * scale,
      y: (y) => h - oy - (y - state.view_min[1]) * scale,
    };
  }

  function drawObjects(m) {
    ctx.lineWidth = 1;
    for (const o of state.objects) {
      ctx.beginPath();
      if (o.kind === 'sphere') {
        ctx.arc(m.x(o.a[0]), m.y(o.a[1]), o.radius * m.scale, 0, 2 * Math.PI);
        ctx.fillStyle = COLOURS.obstacleFill;
        ctx.fill();
        ctx.strokeStyle = COLOURS.obstacleEdge;
        ctx.stroke();
      } else if (o.kind === 'box') {
        ctx.rect(m.x(o.a[0]), m.y(o.b[1]), (o.b[0] - o.a[0]) * m.scale,
                 (o.b[1] - o.a[1]) * m.scale);
        ctx.fillStyle = COLOURS.obstacleFill;
        ctx.fill();
        ctx.strokeStyle = COLOURS.obstacleEdge;
        ctx.stroke();
      } else if (o.kind === 'segment') {
        ctx.moveTo(m.x(o.a[0]), m.y(o.a[1]));
        ctx.lineTo(m.x(o.b[0]), m.y(o.b[1]));
        ctx.strokeStyle = COLOURS.wall;
        ctx.lineWidth = 2.5;
        ctx.stroke();
        ctx.lineWidth = 1;
      } else if (o.kind === 'plane') {
        // A line through a with normal b, across the whole view.
        const reach = 2 * Math.hypot(state.view_max[0] - state.view_min[0],
                                     state.view_max[1] - state.view_min[1]);
        ctx.moveTo(m.x(o.a[0] - reach * o.b[1]), m.y(o.a[1] + reach * o.b[0]));
        ctx.lineTo(m.x(o.a[0] + reach * o.b[1]), m.y(o.a[1] - reach * o.b[0]));
        ctx.strokeStyle = COLOURS.wall;
        ctx.lineWidth = 2.5;
        ctx.stroke();
        ctx.lineWidth = 1;
      } else if (o.kind === 'path') {
        for (let p = 0; p < o.points.length; p += 2) {
          const x = m.x(o.points[p]), y = m.y(o.points[p + 1]);
          if (p === 0) ctx.moveTo(x, y); else ctx.lineTo(x, y);
        }
        if (o.closed) ctx.closePath();
        ctx.lineJoin = 'round';
        ctx.lineWidth = 2 * o.radius * m.scale;
        ctx.strokeStyle = COLOURS.corridor;
        ctx.stroke();
        ctx.lineWidth = 1;
        ctx.strokeStyle = COLOURS.path;
        ctx.stroke();
      }
    }
  }

  // The scene's still parts (background, box, objects), drawn through the
  // canvas once per build; each frame starts from a copy of their pixels.
  let still = null;     // Uint32Array of the still parts' pixels
  let frameImage = null;

  function drawStill() {
    ctx.fillStyle = COLOURS.background;
    ctx.fillRect(0, 0, canvas.width, canvas.height);
    const m = mapping();
    if (state.box > 0) {
      ctx.strokeStyle = COLOURS.box;
      ctx.lineWidth = 1;
      ctx.strokeRect(m.x(0), m.y(state.box), state.box * m.scale,
                     state.box * m.scale);
    }
    drawObjects(m);
    frameImage = ctx.getImageData(0, 0, canvas.width, canvas.height);
    still = new Uint32Array(frameImage.data.buffer).slice();
  }

  // One triangle into the pixels (RGBA bytes, little-endian words): every
  // pixel whose centre lies inside, tested against the three edges.
  function fillTriangle(pixels, width, height, colour, ax, ay, bx, by, cx,
                        cy) {
    const area = (bx - ax) * (cy - ay) - (by - ay) * (cx - ax);
    if (area === 0) return;
    const sign = area > 0 ? 1 : -1;
    const x0 = Math.max(0, Math.floor(Math.min(ax, bx, cx)));
    const x1 = Math.min(width - 1, Math.ceil(Math.max(ax, bx, cx)));
    const y0 = Math.max(0, Math.floor(Math.min(ay, by, cy)));
    const y1 = Math.min(height - 1, Math.ceil(Math.max(ay, by, cy)));
    for (let y = y0; y <= y1; y++) {
      const py = y + 0.5;
      for (let x = x0; x <= x1; x++) {
        const px = x + 0.5;
        if (sign * ((bx - ax) * (py - ay) - (by - ay) * (px - ax)) >= 0 &&
            sign * ((cx - bx) * (py - by) - (cy - by) * (px - bx)) >= 0 &&
            sign * ((ax - cx) * (py - cy) - (ay - cy) * (px - cx)) >= 0) {
          pixels[y * width + x] = colour;
        }
      }
    }
  }

  // Agents as triangles along their heading, coloured by group: written
  // into the frame's pixels, some thirty times faster than as canvas
  // paths (2,000 agents, headless chromium).
  function drawAgents(m, c, pixels) {
    const w = canvas.width, h = canvas.height;
    const length = Math.max(4, Math.min(w / 90, 1.6 * w /
                                        Math.sqrt(c.count + 1)));
    const ahead = length * 2 / 3, behind = length / 3, half = length / 4;
    // 0xRRGGBB as the little-endian word of opaque RGBA bytes.
    const words = state.colours.map((rgb) => (0xff000000 |
      ((rgb & 0xff) << 16) | (rgb & 0xff00) | ((rgb >> 16) & 0xff)) >>> 0);
    for (let i = 0; i < c.count; i++) {
      const x = m.x(c.px[i]), y = m.y(c.py[i]);
      // Canvas y points down: the heading's y flips.
      const hx = c.fx[i], hy = -c.fy[i];
      fillTriangle(pixels, w, h, words[c.group[i] % words.length],
                   x + ahead * hx, y + ahead * hy,
                   x - behind * hx - half * hy, y - behind * hy + half * hx,
                   x - behind * hx + half * hy, y - behind * hy - half * hx);
    }
  }

  function draw() {
    if (!still) drawStill();
    const start = performance.now();
    const pixels = new Uint32Array(frameImage.data.buffer);
    pixels.set(still);
    const c = columns();
    if (c) drawAgents(mapping(), c, pixels);
    ctx.putImageData(frameImage, 0, 0);
    drawTimes.push(performance.now() - start);
    if (drawTimes.length > WINDOW) drawTimes.shift();
  }

  // The command whose `hash` column is the state shown: the bench steps
  // the same scene on one thread from the same seed.
  function benchCommand(s) {
    return 'throng-bench --scenario ' + s.scene + ' --agents ' + s.agents +
      ' --seed ' + s.seed + ' --threads 1 --warmup 0 --steps ' + s.step +
      ' --repeats 1';
  }

  function showStats(force) {
    const now = performance.now();
    if (!force && now - lastStats < 500) return;
    lastStats = now;
    const s = JSON.parse(api.state());
    const ms = median(stepTimes);
    $('step-ms').textContent = isNaN(ms) ? '-' : ms.toFixed(3) + ' ms/step';
    const dms = median(drawTimes);
    $('draw-ms').textContent = isNaN(dms) ? '-' : dms.toFixed(2) + ' ms/frame';
    $('steps').textContent = s.step;
    $('path').textContent = s.simd;
    $('hash').textContent = s.hash;
    $('bench').textContent = modified()
      ? 'weights changed: a state of its own'
      : 'the same hash as: ' + benchCommand(s);
  }

  function modified() {
    return scene.controls.some((c) => Number($('control-' + c.name).value) !==
                               c.value);
  }

  // Builds the scene from the inputs, with the sliders' values.
  function build() {
    showError('');
    const agents = Math.round(Number($('agents').value));
    const seed = Math.round(Number($('seed').value));
    check(api.build(scene.name, agents, seed, $('simd').value), 'build');
    for (const c of scene.controls) {
      const value = Number($('control-' + c.name).value);
      if (value !== c.value) check(api.set(c.name, value), c.name);
    }
    state = JSON.parse(api.state());
    still = null;
    stepTimes = [];
    drawTimes = [];
    draw();
    showStats(true);
  }

  function chooseScene(name) {
    scene = scenes.find((s) => s.name === name) || scenes[0];
    $('scene').value = scene.name;
    $('description').textContent = scene.description;
    const agents = $('agents');
    agents.max = scene.max_agents;
    agents.value = scene.agents;
    const box = $('controls');
    box.textContent = '';
    for (const c of scene.controls) {
      const label = document.createElement('label');
      label.title = c.meaning + (c.unit ? ' (' + c.unit + ')' : '');
      const name = document.createElement('span');
      name.textContent = c.name.replace(/_/g, ' ');
      const input = document.createElement('input');
      input.type = 'range';
      input.id = 'control-' + c.name;
      input.min = c.min;
      input.max = c.max;
      input.step = c.step;
      input.value = c.value;
      const out = document.createElement('output');
      out.textContent = c.value;
      input.addEventListener('input', () => {
        out.textContent = input.value;
        check(api.set(c.name, Number(input.value)), c.name);
        showStats(true);
      });
      label.append(name, ' ', input, ' ', out);
      box.append(label);
    }
    build();
  }

  function frame() {
    if (running && state) {
      const steps = Number($('speed').value);
      const start = performance.now();
      const status = api.step(steps);
      const elapsed = performance.now() - start;
      if (status !== 0) {
        running = false;
        showError('step: ' + api.error());
      } else {
        stepTimes.push(elapsed / steps);
        if (stepTimes.length > WINDOW) stepTimes.shift();
      }
    }
    if (state) {
      draw();
      showStats(false);
    }
    frames++;
    const waiters = frameWaiters;
    frameWaiters = [];
    for (const resolve of waiters) resolve(frames);
    requestAnimationFrame(frame);
  }

  function setRunning(on) {
    running = on;
    $('pause').textContent = running ? 'Pause' : 'Run';
  }

  // What the web test drives.
  window.throngPage = {
    // The agents' positions now, x then y per agent (a copy).
    positions() {
      const c = columns();
      const out = new Float64Array(2 * c.count);
      for (let i = 0; i < c.count; i++) {
        out[2 * i] = c.px[i];
        out[2 * i + 1] = c.py[i];
      }
      return Array.from(out);
    },
    // Resolves once `count` more frames have been drawn.
    frames(count) {
      let left = count;
      return new Promise((resolve) => {
        const wait = () => {
          if (--left <= 0) resolve(frames);
          else frameWaiters.push(wait);
        };
        frameWaiters.push(wait);
      });
    },
    state() {
      return JSON.parse(api.state());
    },
    // The scenes the page offers (web_scenes).
    scenes() {
      return scenes;
    },
    // Builds a scene with the scene's own weights, or those of `controls`
    // ({name: value}), and runs `steps` steps in one go, timed; the world
    // stays on the canvas, paused.
    run(name, agents, seed, steps, simd, controls) {
      setRunning(false);
      const row = scenes.find((s) => s.name === name);
      if (!row) throw new Error('no scene ' + name);
      if (row !== scene) chooseScene(name);
      for (const c of scene.controls) {
        const value = controls && c.name in controls ? controls[c.name]
          : c.value;
        $('control-' + c.name).value = value;
        $('control-' + c.name).nextElementSibling.textContent = value;
      }
      $('agents').value = agents;
      $('seed').value = seed;
      $('simd').value = simd;
      build();
      // Each step timed alone, and the median taken, as the bench does.
      const times = [];
      for (let k = 0; k < steps; k++) {
        const start = performance.now();
        check(api.step(1), 'step');
        times.push(performance.now() - start);
      }
      stepTimes = times.slice(-WINDOW);
      state = JSON.parse(api.state());
      draw();
      showStats(true);
      return { hash: state.hash, simd: state.simd, step: state.step,
               agents: state.agents, ms_per_step: median(times) };
    },
    pause() {
      setRunning(false);
    },
    // A function of the module's C side (throng_web.h) called directly,
    // as the page calls it: its result and the sentence web_error gives.
    call(name, ...args) {
      const result = api[name](...args);
      return { result: result, error: api.error() };
    },
  };

  async function start() {
    module = await createThrong();
    api = {
      scenes: module.cwrap('web_scenes', 'string', []),
      build: module.cwrap('web_build', 'number',
                          ['string', 'number', 'number', 'string']),
      set: module.cwrap('web_set', 'number', ['string', 'number']),
      step: module.cwrap('web_step', 'number', ['number']),
      columns: module.cwrap('web_columns', 'number', []),
      state: module.cwrap('web_state', 'string', []),
      error: module.cwrap('web_error', 'string', []),
    };
    scenes = JSON.parse(api.scenes());
    const select = $('scene');
    for (const s of scenes) {
      const option = document.createElement('option');
      option.value = s.name;
      option.textContent = s.name;
      select.append(option);
    }
    select.addEventListener('change', () => chooseScene(select.value));
    for (const id of ['agents', 'seed', 'simd']) {
      $(id).addEventListener('change', build);
    }
    $('restart').addEventListener('click', build);
    $('pause').addEventListener('click', () => setRunning(!running));
    $('speed').addEventListener('input', () => {
      $('speed-value').textContent = $('speed').value;
      stepTimes = [];
    });
    const asked = new URLSearchParams(location.search).get('scene');
    chooseScene(asked || scenes[0].name);
    requestAnimationFrame(frame);
    document.body.dataset.ready = 'yes';
  }

  start().catch((error) => {
    showError(String(error && error.stack || error));
    document.body.dataset.ready = 'failed';
  });
})();
