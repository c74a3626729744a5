s/(catalog [^)]*)/(catalog VERSION)/
