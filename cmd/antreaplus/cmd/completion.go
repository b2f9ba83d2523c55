package cmd

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"
)

func newCompletionCommand(out io.Writer) *cobra.Command {
	return &cobra.Command{
		Use:   "completion bash|zsh|fish",
		Short: "Print the shell completion script of antreaplus",
		Long: `completion prints a script that completes antreaplus's commands, flags and their values in
the shell: the contexts of the kubeconfig for --context, the formats for -o, the sandbox's VMs
where a command takes one. Load it in the current shell, or install it for every new one.`,
		Example: `  # bash (needs the bash-completion package)
  source <(antreaplus completion bash)
  antreaplus completion bash > /etc/bash_completion.d/antreaplus
  # zsh
  antreaplus completion zsh > "${fpath[1]}/_antreaplus"
  # fish
  antreaplus completion fish > ~/.config/fish/completions/antreaplus.fish`,
		ValidArgs: []string{"bash", "zsh", "fish"},
		Args:      cobra.MatchAll(cobra.ExactArgs(1), cobra.OnlyValidArgs),
		RunE: func(cmd *cobra.Command, args []string) error {
			root := cmd.Root()
			switch args[0] {
			case "bash":
				return root.GenBashCompletionV2(out, true)
			case "zsh":
				return root.GenZshCompletion(out)
			case "fish":
				return root.GenFishCompletion(out, true)
			}
			return fmt.Errorf("unknown shell %q: use bash, zsh or fish", args[0])
		},
	}
}
