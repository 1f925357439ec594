"""One module per follow-up strategy: continuation ("tell me more"), reason ("why?"), another panelist's view
("what does Olive think?") and elaboration ("and for training?"), over a shared ``FollowUp`` context."""
