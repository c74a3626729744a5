s/clefrun [0-9][0-9.]*[0-9]/clefrun VERSION/g
s/catalog [0-9][0-9.]*[0-9]/catalog VERSION/g
