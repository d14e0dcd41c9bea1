#!/usr/bin/env bash
# scripts/deps.sh: `make demo` installs only its --demo list, so that list
# must hold every library pcl links (or a fresh machine's demo fails to
# build), and make check's full list must hold all of the demo's.
. "$(dirname "$0")/lib.sh"
cd "$(dirname "$0")/../.."

lists=$(sed -n '/^pkgs=(/,/^)/p;/^demo_pkgs=(/,/^)/p' scripts/deps.sh)
# shellcheck disable=SC1090
source <(echo "$lists")
if [ ${#demo_pkgs[@]} -eq 0 ] || [ ${#pkgs[@]} -eq 0 ]; then
	not_ok deps-lists "no pkgs=() or demo_pkgs=() list in scripts/deps.sh"
	exit 0
fi

out=()
for p in "${demo_pkgs[@]}"; do
	[[ " ${pkgs[*]} " == *" $p "* ]] || out+=("$p")
done
if [ ${#out[@]} -eq 0 ]; then ok deps-demo-in-full; else not_ok deps-demo-in-full "in --demo only: ${out[*]}"; fi

# Every -lX pcl links (LDLIBS, and CLI_LDLIBS: the pcl binary's own, ncurses):
# the Debian package holding libX.so/.a is in the demo list.
if ! command -v dpkg >/dev/null; then
	skip deps-demo-links "no dpkg: not a Debian machine"
	exit 0
fi
ldlibs=$(make -s -p -n all 2>/dev/null | sed -n 's/^\(CLI_\)\{0,1\}LDLIBS :\{0,1\}= //p' | head -2 | tr '\n' ' ')
missing=() checked=0
for l in $ldlibs; do
	l=${l#-l}
	case "$l" in m | pthread | dl | rt) continue ;; esac
	f=$(ls /usr/lib/*-linux-gnu/lib"$l".so /usr/lib/*-linux-gnu/lib"$l".a 2>/dev/null | head -1)
	if [ -z "$f" ]; then
		missing+=("-l$l (no lib$l.so here)")
		continue
	fi
	pkg=$(dpkg -S "$f" 2>/dev/null | head -1 | cut -d: -f1)
	checked=$((checked + 1))
	[[ " ${demo_pkgs[*]} " == *" $pkg "* ]] || missing+=("-l$l ($pkg)")
done
if [ $checked -ge 5 ] && [ ${#missing[@]} -eq 0 ]; then
	ok deps-demo-links
else
	not_ok deps-demo-links "checked $checked libraries of LDLIBS='$ldlibs'" "not in the --demo list: ${missing[*]}"
fi
