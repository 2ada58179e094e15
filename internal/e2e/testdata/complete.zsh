# complete.zsh SETUP LINE...
# For each LINE, prints "== LINE" and then the candidates zsh's completion
# offers when LINE is typed and TAB pressed, one a line: an interactive zsh
# on a pseudo-terminal sources complete-setup.zsh (SETUP: "eval", or the
# folder to put first in $fpath), then gets each line and a TAB.
zmodload zsh/zpty || exit 2
export WT_ZSH_SETUP=$1
shift
zpty wt zsh -f -i
zpty -w wt "source ${(q)${0:A:h}}/complete-setup.zsh"
zpty -r -m wt out '*<<READY>>*' || exit 3
local line got
for line; do
	print -r -- "== $line"
	zpty -w -n wt "$line"$'\t'
	zpty -r -m wt out '*<<END>>*' || exit 4
	for got in ${(f)out//$'\r'/}; do
		[[ $got == *CAND:* ]] && print -r -- ${got#*CAND:}
	done
	zpty -w -n wt $'\C-u'
done
zpty -d wt
