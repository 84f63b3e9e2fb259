# bash completion for blkpeak — installed as
# share/bash-completion/completions/blkpeak by `make install`.
#
# The commands and options are read from blkpeak's own --help texts at the
# moment of completion (`blkpeak --help`, `blkpeak COMMAND --help`,
# `blkpeak analyze SUB --help`, `blkpeak suite SUB --help`), so an option added to a command completes
# without editing this file. Only the values of a few options are listed
# here. Needs nothing from the bash-completion package.

# _blkpeak_help BIN WORDS...: the --help text of the command WORDS.
_blkpeak_help()
{
	local bin=$1
	shift
	"$bin" "$@" --help 2>/dev/null
}

# _blkpeak_commands TEXT: the command names listed under "commands:".
_blkpeak_commands()
{
	printf '%s\n' "$1" | awk '/^commands:/ { on = 1; next }
		on && /^  [a-z]/ { print $1; next }
		on && !/^  / { on = 0 }'
}

# _blkpeak_options TEXT: every long option named in the text and every
# short option that opens an option line ("  -o, --output FILE").
_blkpeak_options()
{
	printf '%s\n' "$1" | grep -o -- '--[a-z][a-z0-9-]*' | sort -u
	printf '%s\n' "$1" | sed -n 's/^ *\(-[a-zA-Z0-9]\)[, ].*/\1/p' | sort -u
}

# _blkpeak_argument TEXT OPTION: the argument name the help gives OPTION
# ("FILE", "wrap|scale"), empty when it takes none.
_blkpeak_argument()
{
	printf '%s\n' "$1" | awk -v opt="$2" '
		/^ *-/ {
			for (i = 1; i <= NF; i++) {
				w = $i; sub(/,$/, "", w)
				if (w == opt) {
					a = $(i + 1)
					if (a ~ /^--/) { a = $(i + 2) }	# "-o, --output FILE"
					if (a ~ /^[A-Z.]|[|]/ && a !~ /^-/) { print a }
					exit
				}
			}
		}'
}

# _blkpeak_map_keys BIN WORDS...: for replay --map, "path:" and "comm:"
# (file and task maps), and "NAME=" for each device of the trace among
# WORDS (the first existing *.bpt) and each partition its capture stored,
# as `blkpeak info` lists them.
_blkpeak_map_keys()
{
	local bin=$1 w
	shift
	printf '%s\n' path: comm:
	for w in "$@"; do
		[[ $w == *.bpt && -f $w ]] || continue
		"$bin" info "$w" 2>/dev/null | awk '
			/^devices:/ { dev = 1; next }
			/^partitions of / { part = 1; dev = 0; next }
			/^[a-z]/ { dev = 0; part = 0 }
			(dev || part) && $1 ~ /^[0-9]+$/ { print $2 "=" }'
		return 0
	done
}

_blkpeak()
{
	local cur=${COMP_WORDS[COMP_CWORD]}
	local prev=${COMP_WORDS[COMP_CWORD - 1]}
	local bin=${COMP_WORDS[0]}
	local path=() i w text arg
	COMPREPLY=()

	# The command path: blkpeak [COMMAND [SUBCOMMAND]]. Words after
	# `capture --` are the recorded command's: complete commands, then files.
	for ((i = 1; i < COMP_CWORD; i++)); do
		w=${COMP_WORDS[i]}
		if [[ $w == -- ]]; then
			if ((i == COMP_CWORD - 1)); then
				mapfile -t COMPREPLY < <(compgen -c -- "$cur" | sort -u)
			else
				mapfile -t COMPREPLY < <(compgen -f -- "$cur")
			fi
			return 0
		fi
		[[ $w == -* ]] && continue
		if ((${#path[@]} == 0)) ||
			{ [[ ${path[0]} == analyze || ${path[0]} == suite ]] && ((${#path[@]} == 1)); }; then
			# A command word only if the level above lists it.
			text=$(_blkpeak_help "$bin" "${path[@]}")
			if _blkpeak_commands "$text" | grep -qx -- "$w"; then
				path+=("$w")
			fi
		fi
	done

	text=$(_blkpeak_help "$bin" "${path[@]}")
	# measure knee has options of its own (blkpeak measure knee --help)
	if [[ ${path[0]} == measure && " ${COMP_WORDS[*]:1:COMP_CWORD-1} " == *" knee "* ]]; then
		text=$(_blkpeak_help "$bin" measure knee)
	fi

	# The value of the option before the cursor.
	if [[ $prev == -* && $prev != -- ]]; then
		arg=$(_blkpeak_argument "$text" "$prev")
		if [[ -n $arg ]]; then
			case $prev in
			--timing) w="original afap causal" ;;
			--kind|-k) w="latency-cdf iops lba qd sizes mbps latency-time seeks-time members btt btt-procs qd-iops qd-p99 zcav seeks commit knee-latency knee-iops" ;;
			--pattern) w="random sequential fileserver webserver workstation database" ;;
			--arrival) w="fixed poisson" ;;
			--engine) w=$("$bin" replay --list 2>/dev/null | awk '/^[^ ]/ { e = /^engines/; next } e { print $1 }') ;;
			--map)
				w=$(_blkpeak_map_keys "$bin" "${COMP_WORDS[@]:1}")
				if [[ -n $w ]]; then
					compopt -o nospace 2>/dev/null
					mapfile -t COMPREPLY < <(compgen -W "$w" -- "$cur")
				fi
				return 0
				;;
			--mix-offset) # a mix's recordings by name (replay/mix.h): NAME=
				w=$(for x in "${COMP_WORDS[@]:1}"; do
					[[ $x == *.bpt ]] && { x=${x##*/}; printf '%s= ' "${x%.*}"; }; done)
				compopt -o nospace 2>/dev/null
				mapfile -t COMPREPLY < <(compgen -W "$w" -- "$cur")
				return 0
				;;
			--recording) # analyze report: the mixed run's recordings (its meta mix.K.name)
				w=$(for x in "${COMP_WORDS[@]:1}"; do
					[[ $x == *.bpt && -f $x ]] && "$bin" info "$x" 2>/dev/null |
						sed -n 's/^ *meta: *mix\.[0-9]*\.name=//p'; done) ;;
			--format|-f) w="text csv json" ;;
			--fill) w="zero random" ;;
			--select)	# a time range, or KIND: then its value
				compopt -o nospace 2>/dev/null
				mapfile -t COMPREPLY < <(compgen -W "dev: pid: comm: path: op:" -- "$cur")
				return 0
				;;
			--from|--to) w=$("$bin" convert --list 2>/dev/null | awk '/^  / { print $1 }' | sort -u) ;;
			*) w="" ;;
			esac
			if [[ -z $w && $arg == *"|"* ]]; then
				w=${arg//|/ }
			fi
			if [[ -n $w ]]; then
				mapfile -t COMPREPLY < <(compgen -W "$w" -- "$cur")
			elif [[ $arg == *FILE* || $arg == *PATH* || $arg == *.bpt* ||
				$arg == DEV || $arg == SPEC || $arg == TRACE ]]; then
				mapfile -t COMPREPLY < <(compgen -f -- "$cur")
			fi
			return 0
		fi
	fi

	if [[ $cur == -* ]]; then
		mapfile -t COMPREPLY < <(compgen -W "$(_blkpeak_options "$text")" -- "$cur")
		return 0
	fi
	w=$(_blkpeak_commands "$text")
	# measure's KIND, until one is given
	if [[ ${path[0]} == measure ]]; then
		local kinds="qd-sweep zcav seeks commit knee" k given=""
		for ((i = 2; i < COMP_CWORD; i++)); do
			for k in $kinds; do [[ ${COMP_WORDS[i]} == "$k" ]] && given=1; done
		done
		[[ -z $given ]] && w=$kinds
	fi
	if [[ -n $w ]]; then
		mapfile -t COMPREPLY < <(compgen -W "$w" -- "$cur")
	elif [[ ${path[0]} == suite ]]; then
		mapfile -t COMPREPLY < <(compgen -d -- "$cur")	# a suite folder
	else
		mapfile -t COMPREPLY < <(compgen -f -- "$cur")
	fi
	return 0
}

complete -F _blkpeak blkpeak
