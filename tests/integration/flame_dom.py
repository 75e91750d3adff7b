#!/usr/bin/env python3
"""Read a flame graph page's DOM as Chromium printed it (--dump-dom, after
its script ran) and print what a person sees, one fact a line:
  frames N            every frame the page holds (data-frames)
  rendered N          the frames drawn (g.f, the root "all" included)
  ready 1             the script finished (data-ready)
  load_ms N           performance.now() when it finished
  zoom I              the frame zoomed to
  widest SHARE NAME   the widest drawn frame but the root, its share (%)
  matched SHARE       the search's matched share, when there is one
  has NAME            a drawn frame is named NAME exactly (NAME: argv[2])
Python's standard library only."""
import re
import sys
from html.parser import HTMLParser

TITLE = re.compile(r'^(.*) \((\d+) (\S+), ([0-9.]+)%\)$', re.S)


class Dom(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.svg = {}
        self.frames = []      # (index, title text)
        self.matched = None
        self.cur = None       # frame index while inside its <g>
        self.in_title = False
        self.text = ''

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == 'svg' and a.get('id') == 'flame':
            self.svg = a
        elif tag == 'g' and 'f' in (a.get('class') or '').split():
            self.cur = int(a['data-i'])
        elif tag == 'title' and self.cur is not None:
            self.in_title, self.text = True, ''
        elif tag == 'text' and a.get('id') == 'matched' and 'data-share' in a:
            self.matched = a['data-share']

    def handle_data(self, data):
        if self.in_title:
            self.text += data

    def handle_endtag(self, tag):
        if tag == 'title' and self.in_title:
            self.frames.append((self.cur, self.text))
            self.in_title = False
        elif tag == 'g':
            self.cur = None


def main():
    d = Dom()
    with open(sys.argv[1], encoding='utf-8') as f:
        d.feed(f.read())
    print('frames', d.svg.get('data-frames', 0))
    print('rendered', len(d.frames))
    print('ready', d.svg.get('data-ready', 0))
    print('load_ms', d.svg.get('data-load-ms', -1))
    print('zoom', d.svg.get('data-zoom', -1))
    best = None
    for i, t in d.frames:
        m = TITLE.match(t)
        if i == 0 or not m:
            continue
        if best is None or int(m.group(2)) > best[0]:
            best = (int(m.group(2)), m.group(4), m.group(1))
    if best:
        print('widest', best[1], best[2])
    if d.matched is not None:
        print('matched', d.matched)
    if len(sys.argv) > 2:
        for _, t in d.frames:
            m = TITLE.match(t)
            if m and m.group(1) == sys.argv[2]:
                print('has', sys.argv[2])
                break


main()
