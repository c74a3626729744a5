s/^catalog [0-9A-Za-z.+~-]* of [0-9]\{4\}-[0-9][0-9]-[0-9][0-9] (sha256 [0-9a-f]\{12\}), built in$/catalog VERSION of DATE (sha256 DIGEST), built in/
