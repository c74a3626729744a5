#!/usr/bin/env zsh
# What zsh's completion offers for a command line, one candidate a line:
#
#   zsh-capture.zsh FPATH_DIR BIN_DIR 'clefrun check --fo'
#
# FPATH_DIR holds the _clefrun under test; BIN_DIR holds the clefrun that the
# completion runs for ids. An interactive zsh runs in a pseudo-terminal
# (zsh/zpty) with compinit; compadd is wrapped to print every candidate, and
# a completion end hook prints a marker, then Tab is sent.
zmodload zsh/zpty || { print -u2 "zsh-capture: no zsh/zpty module"; exit 2 }
fdir=$1 bdir=$2 input=$3
init=$(mktemp "${TMPDIR:-/tmp}/zsh-capture.XXXXXX")
cat >$init <<INIT
PROMPT=
RPROMPT=
unsetopt zle_bracketed_paste 2>/dev/null
fpath=($fdir \$fpath)
autoload -Uz compinit
compinit -u -D
bindkey '^I' complete-word
zstyle ':completion:*' insert-tab false
comppostfuncs=(__capture_end)
__capture_end() { print -n \$'\\0END\\r'; exit }
compadd() {
  if [[ \${@[1,(i)(-|--)]} == *-(O|A|D)\ * ]]; then builtin compadd "\$@"; return \$?; fi
  typeset -a __hits
  builtin compadd -A __hits "\$@"
  (( \$#__hits )) || return 1
  local h
  for h in \$__hits; do print -r -- "CAND:\$h"; done
}
print ready
INIT
zpty z env PATH="$bdir:$PATH" TERM=dumb HOME="${HOME:-/tmp}" zsh -f -i
zpty -w z "source $init"
integer tries=0
while (( tries++ < 200 )); do
  zpty -r -t z line 2>/dev/null && [[ $line == ready* ]] && break
  sleep 0.05
done
zpty -w -n z "$input"$'\t'
out=''
tries=0
while (( tries++ < 400 )); do
  if zpty -r -t z chunk 2>/dev/null; then
    out+=$chunk
    [[ $out == *$'\0END'* ]] && break
  else
    sleep 0.05
  fi
done
zpty -d z
rm -f $init
[[ $out == *$'\0END'* ]] || { print -u2 "zsh-capture: no answer from zsh"; exit 1 }
local -a lines=(${(f)out})
print -rl -- ${${(M)lines:#*CAND:*}##*CAND:} | tr -d '\r'
