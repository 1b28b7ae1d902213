"""Scripts under a skill folder, diffed with the field's own analysers and a plain reading of the added lines.

Python goes through Bandit and shell through ShellCheck (scripts/install_shellcheck.sh installs the
pinned Debian package; Bandit is a dependency). Only what they find on lines the edit added is
reported: a script's old problems are not this edit's. Every script, in any language, is also read
for new commands, network calls and file deletions on its added lines. An analyser that is not
installed, or fails, is a finding of its own (`analyser_unavailable`): never a silent skip.

    change     one script's change: its added lines and the findings on them (diff_script)
    language   which language a script is analysed as (script_language)
    analysers  Bandit and ShellCheck, and how to run them (Analysers)
    reading    the plain reading of added lines: deletions, network calls, new commands
"""

from __future__ import annotations

from ratchet.diff.scripts.analysers import Analysers
from ratchet.diff.scripts.change import added_lines, diff_script
from ratchet.diff.scripts.language import Language, script_language

__all__ = ["Analysers", "Language", "added_lines", "diff_script", "script_language"]
