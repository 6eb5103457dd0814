#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""
How the module's source tree hangs together, as figures for a layout
change: include edges and symbol-reference edges between files, the share
of each that crosses top-level folders, and the largest set of .c files
that depend on each other in a cycle (a strongly connected component of
the reference graph).

  scripts/layout-stats.py [BUILD_DIR] [-v] [--renames FILE]

BUILD_DIR is a built module tree (build/<release>, default: the newest);
its objects give the reference edges: a symbol one object uses and another
defines. Include edges come from the sources' #include "..." lines,
resolved as Kbuild does (the including file's folder, then include/).
Edges are also counted across parts, the subsystems of MAINTAINERS (a
file in no part is its folder's); --renames FILE ("OLD NEW" lines) maps an
older tree's paths onto MAINTAINERS' for a before-and-after. The cluster
is given twice: as the references make it, and without the
references of the core's tables (main.c's init table, dev_types.c, the
genetlink family's netlink.c), which name every subsystem's entry points
by design.
"""
import os
import re
import subprocess
import sys

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), '..'))


def top_folder(path):
	parts = path.split('/')
	return parts[0] if len(parts) > 1 else '.'


def parts(renames):
	"""A function from a path to its MAINTAINERS part (longest F: match)."""
	import fnmatch
	pats = []
	part = None
	with open(os.path.join(TOP, 'MAINTAINERS')) as fh:
		for line in fh:
			if line.startswith('F:'):
				pats.append((line.split()[1], part))
			elif line.strip() and not line[0].isspace() and ':' not in line[:3]:
				part = line.split('(')[0].strip()

	def of(path):
		path = renames.get(path, path)
		best = None
		for pat, name in pats:
			hit = path.startswith(pat) if pat.endswith('/') else fnmatch.fnmatch(path, pat)
			if hit and (best is None or len(pat) > len(best[0])):
				best = (pat, name)
		return best[1] if best else top_folder(path)
	return of


def module_sources(build):
	srcs = []
	for root, _dirs, files in os.walk(build):
		for f in files:
			if f.endswith('.o') and not f.startswith('edm.') and f != 'edm.o':
				rel = os.path.relpath(os.path.join(root, f), build)
				c = rel[:-2] + '.c'
				if os.path.exists(os.path.join(TOP, c)):
					srcs.append(c)
	return sorted(srcs)


def headers():
	out = []
	for root, dirs, files in os.walk(TOP):
		rel = os.path.relpath(root, TOP)
		if rel.startswith(('build', 'tools', 'selftests', 'Documentation', 'scripts', '.')) \
		   and rel != '.':
			dirs[:] = []
			continue
		if rel.startswith('include/uapi'):
			continue
		for f in files:
			if f.endswith('.h'):
				out.append(os.path.normpath(os.path.join(rel, f)))
	return out


INC = re.compile(r'^\s*#\s*include\s*"([^"]+)"', re.M)


def include_edges(files):
	edges = set()
	known = set(files)
	for f in files:
		with open(os.path.join(TOP, f)) as fh:
			text = fh.read()
		for inc in INC.findall(text):
			for cand in (os.path.normpath(os.path.join(os.path.dirname(f), inc)),
				     os.path.normpath(os.path.join('include', inc))):
				if cand in known:
					edges.add((f, cand))
					break
	return edges


def symbols(build, srcs):
	defs, uses = {}, {}
	for c in srcs:
		o = os.path.join(build, c[:-2] + '.o')
		out = subprocess.run(['nm', o], capture_output=True, text=True, check=True).stdout
		for line in out.splitlines():
			parts = line.split()
			if len(parts) == 2 and parts[0] == 'U':
				uses.setdefault(c, set()).add(parts[1])
			elif len(parts) == 3 and parts[1] in 'TDBR':
				defs[parts[2]] = c
	return defs, uses


def ref_edges(defs, uses):
	edges = set()
	for c, syms in uses.items():
		for s in syms:
			d = defs.get(s)
			if d and d != c:
				edges.add((c, d, s))
	return edges


def largest_scc(nodes, edges):
	adj = {n: set() for n in nodes}
	for a, b in edges:
		adj[a].add(b)
	index, low, on, stack, best = {}, {}, set(), [], []
	counter = [0]

	sys.setrecursionlimit(10000)

	def visit(v):
		index[v] = low[v] = counter[0]
		counter[0] += 1
		stack.append(v)
		on.add(v)
		for w in adj[v]:
			if w not in index:
				visit(w)
				low[v] = min(low[v], low[w])
			elif w in on:
				low[v] = min(low[v], index[w])
		if low[v] == index[v]:
			comp = []
			while True:
				w = stack.pop()
				on.discard(w)
				comp.append(w)
				if w == v:
					break
			if len(comp) > len(best):
				best[:] = comp

	for n in nodes:
		if n not in index:
			visit(n)
	return sorted(best)


def main():
	argv = sys.argv[1:]
	renames = {}
	if '--renames' in argv:
		i = argv.index('--renames')
		with open(argv[i + 1]) as fh:
			renames = dict(line.split()[:2] for line in fh if line.strip())
		del argv[i:i + 2]
	args = [a for a in argv if a != '-v']
	build = args[0] if args else None
	if not build:
		base = os.path.join(TOP, 'build')
		rels = sorted(os.listdir(base), key=lambda d: os.path.getmtime(os.path.join(base, d)))
		build = os.path.join(base, rels[-1])
	srcs = module_sources(build)
	files = srcs + headers()
	inc = include_edges(files)
	defs, uses = symbols(build, srcs)
	refs = ref_edges(defs, uses)
	fileref = {(a, b) for a, b, _ in refs}
	scc = largest_scc(srcs, fileref)
	tables = ('/main.c', '/dev_types.c', '/netlink.c')
	scc_nt = largest_scc(srcs, {(a, b) for a, b in fileref if not a.endswith(tables)})

	def cross(edges):
		return sum(1 for e in edges if top_folder(e[0]) != top_folder(e[1]))

	part_of = parts(renames)

	def cross_parts(edges):
		return sum(1 for e in edges if part_of(e[0]) != part_of(e[1]))

	folders = sorted({top_folder(f) for f in files})
	print(f'files: {len(srcs)} .c, {len(files) - len(srcs)} .h in {len(folders)} top-level '
	      f'folders ({" ".join(folders)})')
	print(f'include edges: {len(inc)}, crossing folders {cross(inc)} '
	      f'({100 * cross(inc) / max(len(inc), 1):.0f}%)')
	print(f'reference edges (file, symbol): {len(refs)}, crossing folders {cross(refs)} '
	      f'({100 * cross(refs) / max(len(refs), 1):.0f}%)')
	print(f'reference edges (file to file): {len(fileref)}, crossing folders {cross(fileref)} '
	      f'({100 * cross(fileref) / max(len(fileref), 1):.0f}%)')
	print(f'include edges crossing parts (MAINTAINERS): {cross_parts(inc)} '
	      f'({100 * cross_parts(inc) / max(len(inc), 1):.0f}%); reference edges (file to file): '
	      f'{cross_parts(fileref)} ({100 * cross_parts(fileref) / max(len(fileref), 1):.0f}%)')
	print(f'largest mutually dependent cluster: {len(scc)} .c files over '
	      f'{len({top_folder(f) for f in scc})} folders')
	if '-v' in sys.argv:
		print('  ' + ' '.join(scc))
	print(f'  without the core tables\' references: {len(scc_nt)} .c files over '
	      f'{len({top_folder(f) for f in scc_nt})} folders')
	if '-v' in sys.argv:
		print('  ' + ' '.join(scc_nt))


if __name__ == '__main__':
	main()
