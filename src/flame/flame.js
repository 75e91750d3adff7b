// The flame graph's script (perfsink flamegraph): draws the boxes that
// FLAME (written by flame_emit.c) lays out, at the current zoom, leaving
// out those under 0.1 px; click zooms to a frame, Search highlights the
// frames whose name matches and shows their share of the whole (nested
// matches counted once), Reset undoes both.  "#search=RE&zoom=I" in the
// address does the same at load.  No network, no library.
(function () {
	'use strict';
	var D = FLAME, F = D.frames, N = D.names, n = F.length / 5;
	var NS = 'http://www.w3.org/2000/svg';
	var svg = document.getElementById('flame'), g = document.getElementById('frames');
	var PAD = 10, MINPX = 0.1, CHARW = 6.5;
	var zoom = 0, hit = null, re = null;
	var total = n ? F[2] : 0;
	var kindHue = [[0, 22, 78], [38, 18, 85], [100, 30, 50], [0, 0, 0]];

	function hashOf(s) {
		var h = 0;
		for (var i = 0; i < s.length; i++) h = (h * 31 + s.charCodeAt(i)) | 0;
		return ((h >>> 0) % 1000) / 1000;
	}
	function color(i) {
		var k = F[i * 5 + 4], v = hashOf(N[F[i * 5 + 3]]), c = kindHue[k];
		if (k === 3) return 'hsl(0,0%,' + (66 + 10 * v).toFixed(0) + '%)';
		return 'hsl(' + (c[0] + c[1] * v).toFixed(0) + ',' + c[2] + '%,' + (52 + 14 * v).toFixed(0) + '%)';
	}
	function yOf(d) {
		return D.reverse ? D.top + d * D.fh : D.h - D.bottom - (d + 1) * D.fh;
	}
	function pct(v) {
		return total ? (100 * v / total).toFixed(2) : '0.00';
	}
	function label(name, px) {
		var c = Math.floor((px - 6) / CHARW);
		if (c < 3) return '';
		return name.length <= c ? name : name.slice(0, c - 2) + '..';
	}
	function box(i, x, w, anc) {
		var e = document.createElementNS(NS, 'g'), r = document.createElementNS(NS, 'rect');
		var t = document.createElementNS(NS, 'title'), name = N[F[i * 5 + 3]], y = yOf(F[i * 5]);
		e.setAttribute('class', 'f' + (anc ? ' anc' : '') + (hit && hit[i] ? ' match' : ''));
		e.setAttribute('data-i', i);
		e.setAttribute('data-kind', ['user', 'kernel', 'jit', 'unknown'][F[i * 5 + 4]]);
		t.textContent = name + ' (' + F[i * 5 + 2] + ' ' + D.unit + ', ' + pct(F[i * 5 + 2]) + '%)';
		r.setAttribute('x', x.toFixed(2));
		r.setAttribute('y', y);
		r.setAttribute('width', w.toFixed(2));
		r.setAttribute('height', D.fh - 1);
		r.setAttribute('rx', 2);
		r.setAttribute('fill', hit && hit[i] ? 'rgb(230,0,230)' : color(i));
		e.appendChild(t);
		e.appendChild(r);
		var s = label(name, w);
		if (s) {
			var tx = document.createElementNS(NS, 'text');
			tx.setAttribute('x', (x + 3).toFixed(2));
			tx.setAttribute('y', y + D.fh - 5);
			tx.textContent = s;
			e.appendChild(tx);
		}
		return e;
	}
	// Draw the zoomed frame's subtree across the width, its ancestors full
	// width (faded), nothing else.
	function render() {
		var zd = F[zoom * 5], zx = F[zoom * 5 + 1], zw = F[zoom * 5 + 2];
		var scale = (D.w - 2 * PAD) / zw, frag = document.createDocumentFragment(), drawn = 0;
		for (var i = 0; i < n; i++) {
			var d = F[i * 5], x = F[i * 5 + 1], w = F[i * 5 + 2];
			if (d < zd) {
				if (x <= zx && x + w >= zx + zw) { frag.appendChild(box(i, PAD, D.w - 2 * PAD, true)); drawn++; }
			} else if (x >= zx && x + w <= zx + zw && w * scale >= MINPX) {
				frag.appendChild(box(i, PAD + (x - zx) * scale, w * scale, false));
				drawn++;
			}
		}
		while (g.firstChild) g.removeChild(g.firstChild);
		g.appendChild(frag);
		svg.setAttribute('data-rendered', drawn);
		svg.setAttribute('data-zoom', zoom);
	}
	function search(q) {
		var m = document.getElementById('matched');
		hit = null;
		m.textContent = '';
		m.removeAttribute('data-share');
		if (q) {
			try { re = new RegExp(q); } catch (e) { re = new RegExp(q.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')); }
			hit = new Uint8Array(n);
			// Preorder: a match's descendants follow it, deeper; count them once.
			var sum = 0, under = -1;
			for (var i = 1; i < n; i++) {
				var d = F[i * 5];
				hit[i] = re.test(N[F[i * 5 + 3]]) ? 1 : 0;
				if (under >= 0 && d > under) continue;
				under = -1;
				if (hit[i]) { sum += F[i * 5 + 2]; under = d; }
			}
			m.textContent = 'Matched: ' + pct(sum) + '%';
			m.setAttribute('data-share', pct(sum));
		}
		render();
	}
	function reset() {
		zoom = 0;
		search(null);
	}
	g.addEventListener('click', function (ev) {
		var e = ev.target.closest('g.f');
		if (e) { zoom = +e.getAttribute('data-i'); render(); }
	});
	g.addEventListener('mouseover', function (ev) {
		var e = ev.target.closest('g.f');
		if (e) document.getElementById('details').textContent = e.firstChild.textContent;
	});
	document.getElementById('reset').addEventListener('click', reset);
	document.getElementById('search').addEventListener('click', function () {
		var q = prompt('Search frames (a regular expression):', re ? re.source : '');
		if (q !== null) search(q);
	});
	document.addEventListener('keydown', function (ev) {
		if ((ev.ctrlKey && ev.key === 'f') || ev.key === '/') {
			ev.preventDefault();
			document.getElementById('search').dispatchEvent(new Event('click'));
		} else if (ev.key === 'Escape') {
			reset();
		}
	});
	var args = {};
	location.hash.slice(1).split('&').forEach(function (kv) {
		var k = kv.indexOf('=');
		if (k > 0) args[kv.slice(0, k)] = decodeURIComponent(kv.slice(k + 1));
	});
	if (args.zoom && +args.zoom > 0 && +args.zoom < n) zoom = +args.zoom;
	search(args.search || null);
	svg.setAttribute('data-ready', '1');
	svg.setAttribute('data-load-ms', Math.round(performance.now()));
})();
