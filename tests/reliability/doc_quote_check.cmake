# Fails unless DOC quotes SOURCE's code from the first FROM to the end, line for line (the
# doc's copy may be indented by three spaces, as in a list item): docs/reliability.md shows a
# fuzz target as it is compiled.
file(READ "${SOURCE}" source)
file(READ "${DOC}" doc)
string(FIND "${source}" "${FROM}" from)
if(from EQUAL -1)
  message(FATAL_ERROR "${SOURCE} has no ${FROM}")
endif()
string(SUBSTRING "${source}" ${from} -1 quote)
string(REPLACE "\n   " "\n" doc "${doc}")
string(FIND "${doc}" "${quote}" at)
if(at EQUAL -1)
  message(FATAL_ERROR "${DOC} does not quote ${SOURCE} as compiled; copy it again:\n${quote}")
endif()
