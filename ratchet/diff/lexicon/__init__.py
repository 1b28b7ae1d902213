"""The words the behavioural diff reads, one table per file, so a reviewer can see exactly what a finding rests on.

Each is a plain reading of English and of common shell/SQL commands, written from the issue's list
(send, email, post, publish, delete, remove, pay, transfer, merge, push, deploy ...), not fitted to
any benchmark (docs/diff.md prints these tables).

    actions     side-effect verbs, the words that make one a noun, commands, a harness's acting tools
    rules       rule markers, strong and soft, the hedges that loosen them, contractions expanded first
    conditions  the words and operators that state when something happens
    scope       the words that widen or narrow a description, and those that carry no scope
    sections    where an output section opens, and the line that closes the skill block
"""
