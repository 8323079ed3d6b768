import { type CommandSpec, type Completes, type FlagSpec, valuedFlags } from "./completion-spec.js";

/** The shells `coursesync completion` writes a script for. */
export const SHELLS = ["bash", "zsh", "fish"] as const;
export type Shell = (typeof SHELLS)[number];

/** What the hidden `completion --list` helper lists: the names a script asks the tree for. */
export const LISTS = ["sites", "courses"] as const;
export type List = (typeof LISTS)[number];

/** A word in single quotes for bash and zsh. */
function sh(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}

/** A word in single quotes for fish (where only \\ and \' are escapes). */
function fish(text: string): string {
  return `'${text.replaceAll("\\", "\\\\").replaceAll("'", "\\'")}'`;
}

/** A description cut to its first clause: completion menus have one short line each. */
function brief(description: string): string {
  return description.split(/ \(|; /)[0]!.trim();
}

/** A completion kind as the scripts name it, and the words of a fixed list. */
function kindOf(completes: Completes | undefined): { kind: string; words: readonly string[] } {
  if (completes === undefined) return { kind: "none", words: [] };
  return typeof completes === "string" ? { kind: completes, words: [] } : { kind: "words", words: completes };
}

/** The flags of a command that take a value which the scripts can list (sites, folders, choices). */
function listedValues(spec: CommandSpec): { flag: FlagSpec; name: string }[] {
  return spec.flags
    .filter((flag) => flag.value !== undefined && flag.value !== "free")
    .flatMap((flag) => flag.names.map((name) => ({ flag, name })));
}

function header(shell: Shell, install: string[]): string {
  return [
    `# ${shell} completion for coursesync: made by \`coursesync completion ${shell}\`; do not edit.`,
    ...install.map((line) => `# ${line}`),
    "",
  ].join("\n");
}

/**
 * What the bash and zsh scripts share: the helper that asks the tree for names, and the tables
 * of each command (its subcommands, flags, flags taking a value, arguments) and of flag values.
 * `list` writes a list of words as the shell assigns it; zsh's entries carry a description.
 */
function shTables(
  specs: readonly CommandSpec[],
  list: (words: readonly string[]) => string,
  described: boolean,
) {
  const entry = (name: string, description: string) => (described ? `${name}:${brief(description)}` : name);
  const command = specs.map((spec) => {
    const args = kindOf(spec.args);
    return [
      `    ${sh(spec.path)})`,
      `      subs=${list(spec.subcommands.map((sub) => entry(sub.name, sub.description)))}`,
      `      flags=${list(spec.flags.flatMap((flag) => flag.names.map((name) => entry(name, flag.description))))}`,
      `      valued=${list(valuedFlags(spec))}`,
      `      args=${args.kind} argchoices=${list(args.words)} ;;`,
    ].join("\n");
  });
  const values = specs.flatMap((spec) =>
    listedValues(spec).map(({ flag, name }) => {
      const { kind, words } = kindOf(flag.value);
      return `    ${sh(`${spec.path}|${name}`)}) value=${kind} choices=${list(words)} ;;`;
    }),
  );
  return `_coursesync_list() {
  command coursesync completion --list "$1" 2>/dev/null
}

# Set subs, flags, valued, args and argchoices for the command the line reached ($1).
_coursesync_command() {
  case "$1" in
${command.join("\n")}
  esac
}

# Set value and choices for what the value of flag $2 of command $1 completes to.
_coursesync_value() {
  value=free choices=${list([])}
  case "$1|$2" in
${values.join("\n")}
  esac
}`;
}

/** The bash script. */
function bashScript(specs: readonly CommandSpec[]): string {
  return `${header("bash", [
    "Install: coursesync completion bash > ~/.local/share/bash-completion/completions/coursesync",
    'or add to ~/.bashrc: eval "$(coursesync completion bash)"',
  ])}
${shTables(specs, (words) => sh(words.join(" ")), false)}

_coursesync_reply() {
  local cur="$1"
  case "$2" in
    sites) COMPREPLY=($(compgen -W "$(_coursesync_list sites)" -- "$cur")) ;;
    courses)
      COMPREPLY=($(compgen -W "$(_coursesync_list courses)" -- "$cur"))
      ((\${#COMPREPLY[@]})) || COMPREPLY=($(compgen -f -- "$cur")) ;;
    dirs) COMPREPLY=($(compgen -d -- "$cur")) ;;
    words) COMPREPLY=($(compgen -W "$3" -- "$cur")) ;;
    *) COMPREPLY=() ;;
  esac
}

_coursesync() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" prev="\${COMP_WORDS[COMP_CWORD-1]}"
  local cmd="" subs flags valued args argchoices value choices i w
  _coursesync_command ""
  for ((i = 1; i < COMP_CWORD; i++)); do
    w="\${COMP_WORDS[i]}"
    if [[ " $valued " == *" $w "* ]]; then
      ((i++))
    elif [[ $w != -* && " $subs " == *" $w "* ]]; then
      cmd="\${cmd:+$cmd }$w"
      _coursesync_command "$cmd"
    fi
  done
  if [[ " $valued " == *" $prev "* ]]; then
    _coursesync_value "$cmd" "$prev"
    _coursesync_reply "$cur" "$value" "$choices"
  elif [[ $cur == -* ]]; then
    COMPREPLY=($(compgen -W "$flags" -- "$cur"))
  elif [[ -n $subs ]]; then
    COMPREPLY=($(compgen -W "$subs" -- "$cur"))
  else
    _coursesync_reply "$cur" "$args" "$argchoices"
  fi
}

complete -o filenames -F _coursesync coursesync
`;
}

/** The zsh script: a completion function for fpath, or to source. */
function zshScript(specs: readonly CommandSpec[]): string {
  return `#compdef coursesync
${header("zsh", [
  "Install: coursesync completion zsh > ~/.zfunc/_coursesync  with, in ~/.zshrc before compinit,",
  "  fpath=(~/.zfunc $fpath)",
  "or add to ~/.zshrc, after compinit: source <(coursesync completion zsh)",
])}
${shTables(specs, (words) => `(${words.map(sh).join(" ")})`, true)}

_coursesync_reply() {
  local -a names
  case "$1" in
    sites) names=(\${(f)"$(_coursesync_list sites)"}); compadd -a names ;;
    courses) names=(\${(f)"$(_coursesync_list courses)"}); compadd -a names; _files ;;
    dirs) _directories ;;
    words) compadd -a choices ;;
    *) return 1 ;;
  esac
}

_coursesync() {
  local cmd="" args="" value="" w
  local -a subs flags valued argchoices choices names
  integer i
  _coursesync_command ""
  for ((i = 2; i < CURRENT; i++)); do
    w=\${words[i]}
    if (( \${valued[(Ie)$w]} )); then
      ((i++))
    elif [[ $w != -* ]] && names=(\${subs%%:*}) && (( \${names[(Ie)$w]} )); then
      cmd="\${cmd:+$cmd }$w"
      _coursesync_command "$cmd"
    fi
  done
  local cur=\${words[CURRENT]} prev=\${words[CURRENT-1]}
  if (( \${valued[(Ie)$prev]} )); then
    _coursesync_value "$cmd" "$prev"
    _coursesync_reply "$value"
  elif [[ $cur == -* ]]; then
    _describe -t options option flags
  elif (( $#subs )); then
    _describe -t commands command subs
  else
    choices=("\${argchoices[@]}")
    _coursesync_reply "$args"
  fi
}

if [[ $zsh_eval_context[-1] == loadautofunc ]]; then
  _coursesync "$@"
else
  compdef _coursesync coursesync
fi
`;
}

/** What a fish `complete` line adds for a value or argument of this kind. */
function fishCompletes(completes: Completes): string {
  if (completes === "sites") return "-a '(__coursesync_list sites)'";
  if (completes === "courses") return "-F -a '(__coursesync_courses)'";
  if (completes === "dirs") return "-a '(__fish_complete_directories)'";
  if (completes === "free") return "";
  return `-a ${fish(completes.join(" "))}`;
}

/** The fish script. */
function fishScript(specs: readonly CommandSpec[]): string {
  const skip = specs.flatMap((spec) => valuedFlags(spec).map((name) => fish(`${spec.path}|${name}`)));
  const enter = specs.flatMap((spec) => spec.subcommands.map((sub) => fish(`${spec.path}|${sub.name}`)));
  const lines = specs.flatMap((spec) => {
    const when = `complete -c coursesync -n ${fish(`__coursesync_is ${JSON.stringify(spec.path)}`)}`;
    const subs = spec.subcommands.map(
      (sub) => `${when} -a ${fish(sub.name)} -d ${fish(brief(sub.description))}`,
    );
    const flags = spec.flags.map((flag) => {
      const names = flag.names.map((name) =>
        name.startsWith("--") ? `-l ${name.slice(2)}` : `-s ${name.slice(1)}`,
      );
      const value = flag.value === undefined ? "" : ` -x ${fishCompletes(flag.value)}`;
      return `${when} ${names.join(" ")}${value.trimEnd()} -d ${fish(brief(flag.description))}`;
    });
    const args =
      spec.args === undefined || spec.args === "free" ? [] : [`${when} ${fishCompletes(spec.args)}`];
    return [`# coursesync ${spec.path}`.trimEnd(), ...subs, ...flags, ...args];
  });
  return `${header("fish", ["Install: coursesync completion fish > ~/.config/fish/completions/coursesync.fish"])}
function __coursesync_list
    command coursesync completion --list $argv 2>/dev/null
end

# Course folders as fish names folders (with a slash), so that they merge with the file names.
function __coursesync_courses
    __coursesync_list courses | string replace -r '$' /
end

# The command the line reached: "" for coursesync itself, "pull", "site add".
function __coursesync_command
    set -l words (commandline -opc)
    set -e words[1]
    set -l cmd ""
    set -l skip 0
    for w in $words
        if test $skip -eq 1
            set skip 0
            continue
        end
        switch "$cmd|$w"
            case ${skip.join(" ")}
                set skip 1
            case ${enter.join(" ")}
                set cmd (string trim -- "$cmd $w")
        end
    end
    echo $cmd
end

function __coursesync_is
    set -l cmd (__coursesync_command)
    test "$cmd" = "$argv[1]"
end

complete -c coursesync -f
${lines.join("\n")}
`;
}

/** The completion script for a shell. */
export function completionScript(shell: Shell, specs: readonly CommandSpec[]): string {
  if (shell === "bash") return bashScript(specs);
  if (shell === "zsh") return zshScript(specs);
  return fishScript(specs);
}
