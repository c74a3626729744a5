# The engine of scripts/gen-cli-md: reads the --help texts of clefrun and of
# every command (collected by the script, each after a "@@HELP NAME" line),
# and writes docs/cli.md, the man page or a shell completion from them, so
# that all of these say what the option tables of src/cli say.
#
#   awk -v format=md|man|bash|zsh|fish [-v template=FILE] -f gen-cli-md.awk HELPDUMP
#
# The --help layout it reads (src/cli/args.c cli_print_command_help):
#   usage: USAGE
#   <blank>
#   summary lines (lines indented by two spaces: a block kept as it is;
#   "  CMD SUB ...   text" lines name the subcommands of CMD)
#   <blank>
#   options:                      (the main help: "commands:", "global options:")
#     --name ARG                 help      (help starts in column 30)
#
# Templates (md, man) are copied line by line; a line that is exactly one of
# these directives is replaced:
#   @MAIN_USAGE@        the usage line of `clefrun --help`
#   @COMMANDS@          the commands and their one-line summaries
#   @GLOBAL_OPTIONS@    the global options
#   @COMMAND NAME@      summary, usage and options of NAME ("check", "rig add")
#   @SUMMARY NAME@, @USAGE NAME@, @OPTIONS NAME@   one of those three
#   @UNDOCUMENTED@      @COMMAND for every command the template does not name
#                       (without it, such a command is an error)
#   @VERSION@ @DATE@    (inside other text) clefrun's version, the catalog date

function trim(s) { sub(/^[ \t]+/, "", s); sub(/[ \t]+$/, "", s); return s }

function die(msg) { print "gen-cli-md: " msg > "/dev/stderr"; failed = 1; exit 1 }

# ---- reading the help dump ----------------------------------------------------

function add_option(name, line,    left, help, flag, arg, n) {
	if (length(line) >= 30 && substr(line, 29, 1) == " ") {
		left = trim(substr(line, 3, 26)); help = trim(substr(line, 30))
	} else {
		# a left part wider than the column: "--name ARG help..."
		line = trim(line)
		n = split(line, w, " ")
		left = w[1]; help = ""
		if (n > 1 && w[2] ~ /^[A-Z][A-Z_]*$/) { left = left " " w[2]; help = substr(line, length(left) + 2) }
		else help = substr(line, length(left) + 2)
		help = trim(help)
	}
	if (left == "-h, --help") { flag = "--help"; arg = "" }
	else { flag = left; arg = ""; if (index(left, " ")) { flag = substr(left, 1, index(left, " ") - 1); arg = substr(left, index(left, " ") + 1) } }
	if (flag !~ /^--[a-z0-9][a-z0-9-]*$/) die("cannot read the option line '" line "' of " name)
	n = ++nopt[name]
	oflag[name, n] = flag; oarg[name, n] = arg; ohelp[name, n] = help
	ohasshort[name, n] = left == "-h, --help"
	# One meaning per option name across commands: the completions rely on it.
	if ((flag in takes) && takes[flag] != (arg != "")) die("option " flag " takes a value in one command and not in another")
	if (!(flag in takes)) flags[++nflags] = flag
	takes[flag] = (arg != "")
}

$0 ~ /^@@HELP / {
	cur = substr($0, 8); names[++nnames] = cur; section = ""; started = 0
	next
}
$0 ~ /^@@VERSION / { version = substr($0, 11); next }
$0 ~ /^@@DATE / { date = substr($0, 8); next }
{
	if (cur == "") die("help dump does not start with @@HELP")
	if (!started) {
		if ($0 !~ /^usage: /) die("'" cur " --help' does not start with 'usage: '")
		usage[cur] = substr($0, 8); started = 1; next
	}
	if ($0 ~ /^[a-z][a-z ]*:$/) { section = substr($0, 1, length($0) - 1); next }
	if (section == "") {
		if ($0 == "") { if (summary[cur] != "") pending_blank[cur] = 1; next }
		if (pending_blank[cur]) { summary[cur] = summary[cur] "\n"; pending_blank[cur] = 0 }
		summary[cur] = summary[cur] (summary[cur] == "" ? "" : "\n") $0
		next
	}
	if (section == "commands" && cur == "main") {
		if ($0 ~ /^  [a-z]/) {
			line = trim($0); c = line; sub(/ .*/, "", c); s = trim(substr(line, length(c) + 1))
			commands[++ncommands] = c; cmdsum[c] = s
		}
		next
	}
	if (section == "options" || section == "global options") {
		if ($0 ~ /^  -/) { add_option(cur, $0); next }
		if ($0 == "") next
		epilogue[cur] = epilogue[cur] (epilogue[cur] == "" ? "" : "\n") $0
		next
	}
	die("unexpected section '" section "' in '" cur " --help'")
}

# ---- the model: commands, subcommands, global options -------------------------------

function build(    i, k, c, lines, n, j, l, parts, s, sub_, g) {
	if (!("main" in usage)) die("no 'clefrun --help' in the help dump")
	if (!ncommands) die("'clefrun --help' lists no commands")
	# Global options: main's; in a command's help, an option is global when
	# main has it with the same help text (--catalog differs: it is the
	# command's own).
	for (k = 1; k <= nopt["main"]; k++) globalhelp[oflag["main", k]] = ohelp["main", k]
	for (i = 1; i <= nnames; i++) {
		c = names[i]
		for (k = 1; k <= nopt[c]; k++)
			isglobal[c, k] = c != "main" && (oflag[c, k] in globalhelp) && globalhelp[oflag[c, k]] == ohelp[c, k]
	}
	# Subcommands: "  CMD SUB ..." lines of CMD's summary.
	for (i = 1; i <= ncommands; i++) {
		c = commands[i]
		if (!(c in usage)) die("no '" c " --help' in the help dump")
		n = split(summary[c], lines, "\n")
		for (j = 1; j <= n; j++) {
			l = lines[j]
			if (substr(l, 1, length(c) + 3) != "  " c " ") continue
			l = trim(l); sub_ = substr(l, length(c) + 2); sub(/ .*/, "", sub_)
			s = l; if (match(s, /   +/)) s = trim(substr(s, RSTART)); else s = ""
			subs[c] = subs[c] (subs[c] == "" ? "" : " ") sub_
			subsum[c " " sub_] = s
			if (!((c " " sub_) in usage)) die("no '" c " " sub_ " --help' in the help dump")
		}
	}
	# Every documented unit: commands, each followed by its subcommands.
	for (i = 1; i <= ncommands; i++) {
		c = commands[i]; units[++nunits] = c; unitsum[c] = cmdsum[c]
		n = split(subs[c], parts, " ")
		for (j = 1; j <= n; j++) { units[++nunits] = c " " parts[j]; unitsum[c " " parts[j]] = subsum[c " " parts[j]] }
	}
}

# ---- option values, for the completions ------------------------------------------------
# What follows each option that takes a value: words, or @models @quants
# @rigs @saved @files @dirs (completed at run time). By option name: the
# help texts say it in prose. An option that takes a value and is not here
# completes nothing.
function init_values() {
	values["--format"] = "table json csv markdown"
	values["--require"] = "fast ok slow tight"
	values["--kv-type"] = values["--kv-type-k"] = values["--kv-type-v"] = "f16 q8_0 q4_0"
	values["--flash-attn"] = "on off auto"
	values["--split"] = "layer tensor"
	values["--workload"] = "chat decide"
	values["--engine"] = "llamacpp"
	values["--units"] = "iec si"
	values["--backend"] = "cuda metal rocm vulkan cpu"
	values["--kind"] = "discrete unified system"
	values["--model"] = "@models @files"
	values["--quant"] = "@quants"
	values["--rig"] = "@rigs"
	values["--catalog"] = values["--root"] = "@dirs"
	values["--output"] = "@files"
	positional["inspect"] = "@files"
	positional["rig show"] = "@rigs"
	positional["rig rm"] = "@saved"
}

# The values of option k of unit u: the map's; but a help text that starts
# with a list of words ("table, json, csv or markdown (default table)",
# chart's "svg (the only format)") is taken at its word.
function option_values(u, k,    f, h, out, w) {
	f = oflag[u, k]
	if (!(f in values)) return ""
	if (values[f] ~ /^@/) return values[f]
	h = ohelp[u, k]
	if (h !~ /^[a-z][a-z0-9_]*( \(|,| or |$)/) return values[f]
	sub(/ \(.*/, "", h)
	gsub(/,/, " ", h); gsub(/ or /, " ", h); gsub(/  +/, " ", h)
	return trim(h)
}

# ---- Markdown ----------------------------------------------------------------------

function md_cell(s) { gsub(/\|/, "\\|", s); return s }
function md_line(s) {
	# Text that would start a list, a heading or a quote stays text.
	if (s ~ /^[-*+] / || s ~ /^[#>]/ || s ~ /^[0-9]+[.)] / || s ~ /^(=+|-+)$/) s = "\\" s
	return s
}
function md_summary(name,    n, lines, j, out, code, l) {
	n = split(summary[name], lines, "\n"); out = ""; code = 0
	for (j = 1; j <= n; j++) {
		l = lines[j]
		if (l ~ /^  /) { if (!code) { out = out (out == "" || out ~ /\n\n$/ ? "" : out ~ /\n$/ ? "\n" : "\n\n") "```\n"; code = 1 } out = out substr(l, 3) "\n"; continue }
		if (code) { out = out "```\n"; code = 0 }
		if (l == "") { out = out "\n"; continue }
		out = out (out == "" || out ~ /\n$/ ? "" : "\n") md_line(l)
	}
	if (code) out = out "```\n"
	sub(/\n+$/, "", out)
	return out
}
function md_usage(name) { return "```\n" usage[name] "\n```" }
function md_options(name,    k, out, n) {
	out = "| option | meaning |\n|---|---|"; n = 0
	for (k = 1; k <= nopt[name]; k++) {
		if (isglobal[name, k] || oflag[name, k] == "--help") continue
		out = out "\n| `" oflag[name, k] (oarg[name, k] != "" ? " " oarg[name, k] : "") "` | " md_cell(ohelp[name, k]) " |"; n++
	}
	return n ? out : "No options but `--help` and the global ones."
}
function md_global(    k, out) {
	out = "| option | meaning |\n|---|---|"
	for (k = 1; k <= nopt["main"]; k++)
		out = out "\n| `" (ohasshort["main", k] ? "-h, " : "") oflag["main", k] (oarg["main", k] != "" ? " " oarg["main", k] : "") "` | " md_cell(ohelp["main", k]) " |"
	return out
}
function md_commands(    i, out) {
	out = "| command | what it does |\n|---|---|"
	for (i = 1; i <= ncommands; i++) out = out "\n| `" commands[i] "` | " md_cell(cmdsum[commands[i]]) " |"
	return out
}
function md_command(name,    s) {
	s = md_summary(name)
	return (s != "" ? s "\n\n" : "") md_usage(name) "\n\n" md_options(name)
}

# ---- roff (man) --------------------------------------------------------------------------

function roff_text(s) {
	gsub(/\\/, "\\e", s)
	gsub(/-/, "\\-", s)
	if (s ~ /^[.']/) s = "\\&" s
	return s
}
function man_summary(name,    n, lines, j, out, code, l) {
	n = split(summary[name], lines, "\n"); out = ".PP"; code = 0
	for (j = 1; j <= n; j++) {
		l = lines[j]
		if (l ~ /^  /) { if (!code) { out = out "\n.PP\n.RS 2\n.nf"; code = 1 } out = out "\n" roff_text(substr(l, 3)); continue }
		if (code) { out = out "\n.fi\n.RE"; code = 0; if (l != "") out = out "\n.PP" }
		if (l == "") { out = out "\n.PP"; continue }
		out = out "\n" roff_text(l)
	}
	if (code) out = out "\n.fi\n.RE"
	return out
}
function man_option_line(name, k) {
	# .TP tag on one line: bold option, italic argument
	return ".TP\n\\fB" (ohasshort[name, k] ? "\\-h\\fR, \\fB" : "") roff_text(oflag[name, k]) "\\fR" (oarg[name, k] != "" ? " \\fI" roff_text(oarg[name, k]) "\\fR" : "") "\n" roff_text(ohelp[name, k])
}
function man_options(name,    k, out, n) {
	out = ""; n = 0
	for (k = 1; k <= nopt[name]; k++) {
		if (isglobal[name, k] || oflag[name, k] == "--help") continue
		out = out (out == "" ? "" : "\n") man_option_line(name, k); n++
	}
	return out
}
function man_global(    k, out) {
	out = ""
	for (k = 1; k <= nopt["main"]; k++) out = out (out == "" ? "" : "\n") man_option_line("main", k)
	return out
}
function man_usage(name) { return ".PP\n.RS 2\n.nf\n" roff_text(usage[name]) "\n.fi\n.RE" }
function man_command(name,    o) {
	o = man_options(name)
	return ".SS \"" roff_text("clefrun " name) "\"\n" man_usage(name) "\n" man_summary(name) (o != "" ? "\n" o : "")
}
function man_commands(    i, out) {
	out = ""
	for (i = 1; i <= nunits; i++) out = out (out == "" ? "" : "\n") man_command(units[i])
	return out
}
function man_command_list(    i, out) {
	out = ""
	for (i = 1; i <= ncommands; i++) out = out (out == "" ? "" : "\n") ".TP\n.B " commands[i] "\n" roff_text(cmdsum[commands[i]])
	return out
}

# ---- templates -------------------------------------------------------------------------

function expand(kind, arg) {
	if (format == "md") {
		if (kind == "MAIN_USAGE") return md_usage("main")
		if (kind == "COMMANDS") return md_commands()
		if (kind == "GLOBAL_OPTIONS") return md_global()
		if (kind == "COMMAND") return md_command(arg)
		if (kind == "SUMMARY") return md_summary(arg)
		if (kind == "USAGE") return md_usage(arg)
		if (kind == "OPTIONS") return md_options(arg)
	} else {
		if (kind == "MAIN_USAGE") return man_usage("main")
		if (kind == "COMMANDS") return man_command_list()
		if (kind == "GLOBAL_OPTIONS") return man_global()
		if (kind == "COMMAND") return man_command(arg)
		if (kind == "SUMMARY") return man_summary(arg)
		if (kind == "USAGE") return man_usage(arg)
		if (kind == "OPTIONS") return man_options(arg)
		if (kind == "ALL_COMMANDS") return man_commands()
	}
	die(template ": unknown directive @" kind (arg != "" ? " " arg : "") "@")
}

function is_unit(name,    i) { for (i = 1; i <= nunits; i++) if (units[i] == name) return 1; return 0 }

function render_template(    line, n, tl, i, d, kind, arg, out, undoc, rest) {
	n = 0
	while ((getline line < template) > 0) tl[++n] = line
	close(template)
	if (!n) die(template ": empty or unreadable")
	# Which commands the template names.
	for (i = 1; i <= n; i++)
		if (tl[i] ~ /^@(COMMAND|SUMMARY|USAGE|OPTIONS) [a-z][a-z ]*@$/) {
			d = substr(tl[i], 2, length(tl[i]) - 2); arg = d; sub(/^[A-Z_]+ /, "", arg)
			if (!is_unit(arg)) die(template ":" i ": no command '" arg "' in clefrun --help")
			named[arg] = 1
		} else if (tl[i] == "@UNDOCUMENTED@" || tl[i] == "@ALL_COMMANDS@") undoc = 1
	if (!undoc)
		for (i = 1; i <= nunits; i++)
			if (!(units[i] in named)) die(template ": says nothing of '" units[i] "' (add @COMMAND " units[i] "@ or @UNDOCUMENTED@)")
	for (i = 1; i <= n; i++) {
		line = tl[i]
		gsub(/@VERSION@/, version, line); gsub(/@DATE@/, date, line)
		if (line == "@UNDOCUMENTED@") {
			out = ""
			for (d = 1; d <= nunits; d++) {
				if (units[d] in named) continue
				rest = format == "md" ? "## " units[d] "\n\n" md_command(units[d]) : man_command(units[d])
				out = out (out == "" ? "" : "\n\n") rest
			}
			if (out != "") print out
			continue
		}
		if (line ~ /^@[A-Z_]+( [a-z][a-z ]*)?@$/) {
			d = substr(line, 2, length(line) - 2); kind = d; arg = ""
			if (index(d, " ")) { kind = substr(d, 1, index(d, " ") - 1); arg = substr(d, index(d, " ") + 1) }
			print expand(kind, arg)
			continue
		}
		print line
	}
}

# ---- completions -----------------------------------------------------------------------

function sq(s) { gsub(/'/, "'\\''", s); return "'" s "'" }  # POSIX/bash/zsh single quotes
function fish_sq(s) { gsub(/\\/, "\\\\", s); gsub(/'/, "\\'", s); return "'" s "'" }

function own_opts(name,    k, out) {
	out = ""
	for (k = 1; k <= nopt[name]; k++) out = out (out == "" ? "" : " ") oflag[name, k]
	return out
}

function emit_bash(    i, c, f, k, out) {
	print "_clefrun_commands=" sq(joined_commands())
	print "_clefrun_global_opts=" sq(own_opts("main") " -h")
	printf "_clefrun_takes_value=' "
	for (i = 1; i <= nflags; i++) if (takes[flags[i]]) printf "%s ", flags[i]
	print "'"
	print "_clefrun_subcommands() {"
	print "\tcase $1 in"
	for (i = 1; i <= ncommands; i++) if (subs[commands[i]] != "") print "\t" commands[i] ") echo " sq(subs[commands[i]]) " ;;"
	print "\tesac"
	print "}"
	print "_clefrun_options() {"
	print "\tcase $1 in"
	for (i = 1; i <= nunits; i++) { c = units[i]; print "\t" sq(c) ") echo " sq(trim(own_opts(c) (index(" " own_opts(c) " ", " --help ") ? "" : " --help") " -h")) " ;;" }
	print "\tesac"
	print "}"
	# _clefrun_values UNIT OPTION: a command's own values first, then the map's.
	print "_clefrun_values() {"
	print "\tcase \"$1 $2\" in"
	for (i = 1; i <= nunits; i++)
		for (k = 1; k <= nopt[units[i]]; k++) {
			f = oflag[units[i], k]
			if (oarg[units[i], k] != "" && (f in values) && option_values(units[i], k) != values[f])
				print "\t" sq(units[i] " " f) ") echo " sq(option_values(units[i], k)) " ;;"
		}
	for (i = 1; i <= nflags; i++) { f = flags[i]; if (takes[f] && (f in values)) print "\t*" sq(" " f) ") echo " sq(values[f]) " ;;" }
	print "\tesac"
	print "}"
	print "_clefrun_positional() {"
	print "\tcase $1 in"
	for (i = 1; i <= nunits; i++) if (units[i] in positional) print "\t" sq(units[i]) ") echo " sq(positional[units[i]]) " ;;"
	print "\tesac"
	print "}"
}

function joined_commands(    i, out) { out = ""; for (i = 1; i <= ncommands; i++) out = out (out == "" ? "" : " ") commands[i]; return out }

# Text inside _arguments' [description]: brackets and backslashes escaped.
function zsh_esc(s) { gsub(/\\/, "\\\\", s); gsub(/\[/, "\\[", s); gsub(/\]/, "\\]", s); return s }
# The message part (after a colon): colons escaped too.
function zsh_msg(s) { s = zsh_esc(s); gsub(/:/, "\\:", s); return s }
function zsh_action(u, k,    v, n, w, i, out, words) {
	v = option_values(u, k)
	if (v == "") return " "
	n = split(v, w, " "); out = ""; words = ""
	for (i = 1; i <= n; i++) {
		if (w[i] == "@files") out = out "_files; "
		else if (w[i] == "@dirs") out = out "_files -/; "
		else if (w[i] ~ /^@/) out = out "_clefrun_ids " substr(w[i], 2) "; "
		else words = words (words == "" ? "" : " ") w[i]
	}
	if (words != "") return "(" words ")"
	sub(/; $/, "", out)
	return "{" out "}"
}
function zsh_spec(name, k,    f, h, spec, rep) {
	f = oflag[name, k]; h = zsh_esc(ohelp[name, k])
	rep = ohelp[name, k] ~ /repeatable/ ? "*" : ""
	if (oarg[name, k] == "") return sq(rep f "[" h "]")
	return sq(rep f "=[" h "]:" zsh_msg(oarg[name, k]) ":" zsh_action(name, k))
}
function zsh_specs(name,    k, out) {
	out = ""
	for (k = 1; k <= nopt[name]; k++) {
		if (oflag[name, k] == "--help") out = out " \\\n\t\t" "'(- *)'{-h,--help}" sq("[" zsh_esc(ohelp[name, k]) "]")
		else out = out " \\\n\t\t" zsh_spec(name, k)
	}
	return out
}
# The positional argument a usage line names ("clefrun rig add NAME --mem-gb X",
# "clefrun inspect SOURCE [...]"): an upper-case word outside brackets that
# is not an option's value; "" when there is none.
function usage_positional(name,    rest, n, w, i) {
	rest = usage[name]
	sub("^clefrun " name " ?", "", rest)
	n = split(rest, w, " ")
	for (i = 1; i <= n; i++) {
		if (w[i] ~ /^\[/) { while (i <= n && w[i] !~ /\]/) i++; continue }
		if (w[i] ~ /^-/) { if (i < n && w[i + 1] ~ /^[A-Z][A-Z_]*$/) i++; continue }
		if (w[i] ~ /^[A-Z][A-Z_]*$/) return w[i]
	}
	return ""
}
function zsh_pos_action(name,    v, p) {
	p = usage_positional(name)
	if (!(name in positional)) return p == "" ? "" : " \\\n\t\t'1:" zsh_msg(tolower(p)) ": '"
	v = positional[name]
	if (v == "@files") return " \\\n\t\t'1:file:_files'"
	return " \\\n\t\t'1:name:{_clefrun_ids " substr(v, 2) "}'"
}
function emit_zsh(    i, c, n, parts, j, u) {
	print "_clefrun_commands=("
	for (i = 1; i <= ncommands; i++) print "\t" sq(commands[i] ":" cmdsum[commands[i]])
	print ")"
	print "_clefrun_unit() {"
	print "\tcase $1 in"
	for (i = 1; i <= nunits; i++) {
		u = units[i]
		if (subs[u] != "") {
			print "\t" sq(u) ")"
			print "\t\tlocal -a subs=("
			n = split(subs[u], parts, " ")
			for (j = 1; j <= n; j++) print "\t\t\t" sq(parts[j] ":" subsum[u " " parts[j]])
			print "\t\t)"
			print "\t\t_clefrun_sub " sq(u) " \"${subs[@]}\" ;;"
			continue
		}
		print "\t" sq(u) ")"
		print "\t\t_arguments -s -S" zsh_specs(u) zsh_pos_action(u) " ;;"
	}
	print "\tesac"
	print "}"
	print "_clefrun_main_specs=("
	for (i = 1; i <= nopt["main"]; i++) {
		if (oflag["main", i] == "--help") print "\t'(- *)'{-h,--help}" sq("[" zsh_esc(ohelp["main", i]) "]")
		else print "\t" zsh_spec("main", i)
	}
	print ")"
}

function fish_cond(name) { return "__clefrun_using" (name == "" ? "" : " " name) }
function emit_fish(    i, c, k, f, n, w, j, words, acts, parts, p, line, u) {
	printf "set -g __clefrun_takes_value"
	for (i = 1; i <= nflags; i++) if (takes[flags[i]]) printf " %s", flags[i]
	print ""
	printf "set -g __clefrun_parents"
	for (i = 1; i <= ncommands; i++) if (subs[commands[i]] != "") printf " %s", commands[i]
	print ""
	for (i = 1; i <= ncommands; i++)
		print "complete -c clefrun -n " sq(fish_cond("")) " -a " commands[i] " -d " fish_sq(cmdsum[commands[i]])
	for (i = 1; i <= ncommands; i++) {
		c = commands[i]; if (subs[c] == "") continue
		n = split(subs[c], parts, " ")
		for (j = 1; j <= n; j++) print "complete -c clefrun -n " sq(fish_cond(c)) " -a " parts[j] " -d " fish_sq(subsum[c " " parts[j]])
	}
	# Options of main that every command takes too (--quiet, --units) are
	# offered everywhere; the others only before the command.
	for (i = 1; i <= nunits; i++)
		for (k = 1; k <= nopt[units[i]]; k++) if (isglobal[units[i], k]) everywhere[oflag[units[i], k]] = 1
	for (i = 0; i <= nunits; i++) {
		u = i ? units[i] : "main"
		for (k = 1; k <= nopt[u]; k++) {
			f = oflag[u, k]
			if (i && isglobal[u, k]) continue
			line = "complete -c clefrun -n " (i ? sq(fish_cond(u)) : (f in everywhere) ? "'true'" : sq(fish_cond(""))) " -l " substr(f, 3)
			if (f == "--help") line = line " -s h"
			if (oarg[u, k] != "") {
				words = ""; acts = ""
				if (option_values(u, k) != "") {
					n = split(option_values(u, k), w, " ")
					for (j = 1; j <= n; j++) {
						if (w[j] == "@files" || w[j] == "@dirs") acts = acts " -F"
						else if (w[j] ~ /^@/) words = words (words == "" ? "" : " ") "(__clefrun_ids " substr(w[j], 2) ")"
						else words = words (words == "" ? "" : " ") w[j]
					}
				}
				line = line (acts != "" ? " -r" acts : " -x")
				if (words != "") line = line " -a " sq(words)
			}
			print line " -d " fish_sq(ohelp[u, k])
		}
		if (i && (u in positional)) {
			p = positional[u]
			if (p == "@files") print "complete -c clefrun -n " sq(fish_cond(u)) " -F"
			else print "complete -c clefrun -n " sq(fish_cond(u) "; and __clefrun_no_positional") " -a " sq("(__clefrun_ids " substr(p, 2) ")")
		}
	}
}

END {
	if (failed) exit 1
	build()
	init_values()
	if (format == "md" || format == "man") { if (template == "") die("--template is needed for " format); render_template() }
	else if (format == "bash") emit_bash()
	else if (format == "zsh") emit_zsh()
	else if (format == "fish") emit_fish()
	else die("unknown format '" format "'")
}
